"""``python -m svmlab``: the ``svmlab`` command (:mod:`svmlab.ui.frame.command`):
serve the lab, or ``python -m svmlab precompile`` to warm it up."""

import sys

from svmlab.ui.frame.command import main

sys.exit(main())
