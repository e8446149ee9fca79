"""Multiclass: the page is ``svmlab/ui/multiclass/page.py``; this script runs it."""

from svmlab.ui.multiclass import page

page.render()
