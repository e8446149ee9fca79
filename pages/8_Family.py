"""SVM family: the page is ``svmlab/ui/family/page.py``; this script runs it."""

from svmlab.ui.family import page

page.render()
