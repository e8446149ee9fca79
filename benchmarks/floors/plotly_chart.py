"""Floor page for benchmarks/lecture_flow.py: one small Plotly chart and a slider.

200 points and a curve in ``st.plotly_chart``: what a page with one chart costs
here (Streamlit's Plotly element, plotly.js loaded and drawn once).
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor: one Plotly chart", layout="wide")
C = st.slider("C", 0, 100, 50, key="floor_C")
rng = np.random.default_rng(0)
x = rng.normal(size=200)
y = rng.normal(size=200)
t = np.linspace(-3, 3, 50)
fig = go.Figure(
    [
        go.Scatter(x=x.tolist(), y=y.tolist(), mode="markers", name="points"),
        go.Scatter(x=t.tolist(), y=(np.tanh(t * C / 50)).tolist(), name="curve"),
    ]
)
fig.update_layout(height=400, margin={"l": 40, "r": 20, "t": 30, "b": 40})
st.plotly_chart(fig, key="floor_chart")
st.write(f"C = {C}")
