"""Model selection: the page is ``svmlab/ui/selection/page.py``; this script runs it."""

from svmlab.ui.selection import page

page.render()
