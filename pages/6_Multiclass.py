"""Multiclass: one-vs-rest, one-vs-one and Crammer-Singer on the same data.

Widgets (svmlab.ui.multiclass_page) -> a MulticlassRequest -> the cached
comparison (svmlab.multiclass_compare) -> figure builders
(svmlab.figures.multiclass).
"""

from __future__ import annotations

import sys
from pathlib import Path

# AppTest puts pages/ on sys.path, not the app root: make `import svmlab` work.
ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import streamlit as st  # noqa: E402

import svmlab.ui  # noqa: E402, F401  (limits BLAS to one thread)
from svmlab import SvmlabError, figures  # noqa: E402
from svmlab.errors import FitCancelled  # noqa: E402
from svmlab.figures import multiclass as fig  # noqa: E402
from svmlab.multiclass import METHODS  # noqa: E402
from svmlab.ui import multiclass_page as mp  # noqa: E402
from svmlab.ui import navigation, page_url, panels, refusals  # noqa: E402
from svmlab.ui.page_state import MULTICLASS_STATE  # noqa: E402
from svmlab.ui.upload import escape_markdown  # noqa: E402

page_url.load(
    MULTICLASS_STATE
)  # before the page config: classroom mode collapses the sidebar
st.set_page_config(
    page_title="svmlab · Multiclass",
    layout="wide",
    initial_sidebar_state=page_url.sidebar_state(MULTICLASS_STATE),
)
navigation.sidebar_links()
panels.compact_page()
st.title(
    "Multiclass SVMs",
    help="The same data, kernel and C for the three methods. One-vs-rest trains "
    "one binary SVM per class against the rest and takes the largest score; "
    "one-vs-one trains one per pair and votes (LIBSVM); Crammer-Singer solves "
    "one problem for all classes.",
)

with st.sidebar:
    page_url.classroom_toggle(MULTICLASS_STATE)
    request = mp.controls()
page_url.publish(MULTICLASS_STATE)
page_url.messages(MULTICLASS_STATE)
refusals.show_refusal("multiclass")
if request is None:
    st.info("Upload a CSV file in the sidebar, or switch back to a generator.")
    st.stop()

try:
    X, y, _, _ = request.data()
    results = mp.comparison(request)
    bounds = figures.data_bounds(X)
except FitCancelled:
    st.stop()  # superseded: the next run draws the page
except SvmlabError as error:
    st.error(escape_markdown(error))
    st.stop()
except Exception as error:  # a bug: say so plainly, keep the page usable
    panels.internal_error(error)
    st.stop()

page_url.preset_box(MULTICLASS_STATE, results)
names = request.class_names(int(max(y)) + 1)
panels.plotly_chart(
    fig.key_figure(names),
    config={"displayModeBar": False, "staticPlot": True},
    key="multiclass_key",
)
columns = st.columns(len(METHODS), gap="small")
for column, (method, title) in zip(columns, METHODS.items(), strict=True):
    result = results[method]
    with column:
        st.markdown(f"**{title}**")
        if result.error:
            st.error(escape_markdown(result.error))
            continue
        panels.plotly_chart(
            fig.multiclass_panel(
                result.model,
                X,
                y,
                bounds=bounds,
                # On a projector the preset and the panels share one screen.
                height=260 if page_url.classroom(MULTICLASS_STATE) else 350,
                class_names=names,
            ),
            key=f"multiclass_panel_{method}",
        )
        st.markdown(mp.numbers_markdown(result))
        for note in result.notes[:2]:
            st.caption(escape_markdown(note))
st.markdown(mp.story(results))

left, right = st.columns([3, 2])
with left:
    st.subheader("The Crammer-Singer dual")
    st.latex(mp.DUAL_LATEX)
    st.latex(mp.PREDICT_LATEX)
with right:
    st.subheader("Reading it")
    st.markdown(mp.DUAL_TEXT)
