"""Losses: the page is ``svmlab/ui/losses/page.py``; this script runs it."""

from svmlab.ui.losses import page

page.render()
