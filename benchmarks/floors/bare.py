"""Floor page for benchmarks/lecture_flow.py: one slider and a line of text.

What Streamlit itself costs here (a page load, a rerun), with nothing of svmlab.
"""

import streamlit as st

st.set_page_config(page_title="floor: bare", layout="wide")
C = st.slider("C", 0, 100, 50, key="floor_C")
st.write(f"C = {C}")
