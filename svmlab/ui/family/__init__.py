"""The SVM family page."""
