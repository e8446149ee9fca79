"""Issue 44, item 2: the Crammer-Singer blocks on a kernel of small rank (an
unscaled polynomial), against two references that share none of the blocks'
code: the exact QP on the whole dual (every one of the n k variables at once)
and weak duality (the primal objective at the answer bounds the optimum from
above, whatever solver found it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmlab.datasets import multiclass
from svmlab.kernels import gram
from svmlab.solvers import crammer_singer
from svmlab.solvers.crammer_singer import CSDual
from svmlab.solvers.crammer_singer_low_rank import low_rank_factor
from svmlab.svm.multiclass import CrammerSingerSVC


def test_blocks_converge_above_the_exact_qp_size_on_an_unscaled_polynomial():
    """The issue's case: 400 spiral points times 4, (x'z + 1)^2 (entries up to
    2e7, rank 6): 1,200 variables, above the exact QP's 900, so "auto" takes
    the blocks, which stopped at KKT 15 after 10,000 sweeps and 82 chunks."""
    X, y = multiclass.make("spiral", n_samples=400, n_classes=3, random_state=3)
    X = 4.0 * X
    model = CrammerSingerSVC(kernel="polynomial", degree=2, C=0.5, tol=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.solver_ == "blocks" and model.converged_
    assert model.kkt_violation_ <= 1e-3
    K = gram(X, kernel="polynomial", degree=2, coef0=1.0)
    codes = np.unique(y, return_inverse=True)[1]
    assert crammer_singer.dual_objective(K, model.alpha_, codes) == pytest.approx(
        model.objective_, rel=1e-12
    )
    qp = crammer_singer.solve_qp(CSDual(K, codes, 3, 0.5), tol=1e-3)
    assert model.objective_ == pytest.approx(qp.objective, rel=1e-7)
    # Weak duality: dual <= optimum <= primal; a small gap is optimality's
    # own certificate (the QP's answer is no closer: its gap is about 0.01).
    primal = crammer_singer.primal_objective(K, model.alpha_, codes, 0.5)
    assert 0.0 <= primal - model.objective_ <= 1e-4 * abs(model.objective_)


def test_low_rank_factor_finds_the_polynomial_rank_and_refuses_a_full_one():
    """The monomials of degree <= 2 in 2-D: rank 6 (closed form), reproduced
    to rounding; a Gaussian Gram matrix of distinct points is full rank."""
    X, _ = multiclass.make("spiral", n_samples=120, n_classes=3, random_state=3)
    K = gram(4.0 * X, kernel="polynomial", degree=2, coef0=1.0)
    Phi = low_rank_factor(K)
    assert Phi is not None and Phi.shape == (120, 6)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-9 * K.max())
    assert low_rank_factor(gram(X, sigma=0.3)) is None
