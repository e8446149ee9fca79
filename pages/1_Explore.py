"""Explore: the page is ``svmlab/ui/explore/page.py``; this script runs it."""

from svmlab.ui.explore import page

page.render()
