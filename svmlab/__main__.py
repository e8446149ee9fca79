"""``python -m svmlab``: the ``svmlab`` command (:mod:`svmlab.ui.frame.command`):
serve the lab, or ``python -m svmlab precompile`` to warm it up."""

import sys

from svmlab.ui.frame.command import main

# Guarded: importing the module (pkgutil.walk_packages, documentation tools)
# must not run the command with the importer's argv.
if __name__ == "__main__":
    sys.exit(main())
