"""The lecture hub: the page is ``svmlab/ui/hub/page.py``; this script runs it."""

from svmlab.ui.hub import page

page.render()
