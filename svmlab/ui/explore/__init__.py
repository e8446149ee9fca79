"""The Explore page, a package of its own: its settings (the page's whole state,
in its URL), the sidebar and the live C/σ row, the cached data and fits, clicks
and selections on the chart, the kept-alive chart, the upload, the panels beside
and under the figure, and the lecture tools (preset paragraph, path, inspector,
kernel views, compare)."""
