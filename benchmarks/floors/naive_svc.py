"""Floor page for benchmarks/lecture_flow.py: the naive SVC demo a slider is
compared with (issue 28, item 3): scikit-learn's SVC on 200 points, its decision
function on a 100 x 100 grid as a filled Plotly contour, the points on top,
refitted on every rerun with nothing cached.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from sklearn.datasets import make_moons
from sklearn.svm import SVC

st.set_page_config(page_title="floor: naive SVC", layout="wide")
grid = [round(10 ** (k / 10), 4) for k in range(-30, 51)]
C = st.select_slider("C", options=grid, value=1.0, key="floor_C")
X, y = make_moons(200, noise=0.25, random_state=0)
model = SVC(C=C, gamma=2.0).fit(X, y)
g = np.linspace(-2.0, 3.0, 100)
xx, yy = np.meshgrid(g, g)
f = model.decision_function(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
fig = go.Figure(
    [
        go.Contour(x=g, y=g, z=f, colorscale="RdBu", opacity=0.8),
        go.Scatter(
            x=X[:, 0], y=X[:, 1], mode="markers", marker={"color": y}, name="points"
        ),
    ]
)
fig.update_layout(height=500)
st.plotly_chart(fig, key="floor_chart")
st.write(f"C = {C}, support vectors: {model.n_support_.sum()}")
