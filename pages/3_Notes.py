"""Notes on the sources: the page is ``svmlab/ui/notes/page.py``; this runs it."""

from svmlab.ui.notes import page

page.render()
