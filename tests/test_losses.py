from __future__ import annotations

import numpy as np
import pytest

from svmlab import ParameterError, UnknownNameError
from svmlab.errors import SvmlabError
from svmlab.losses import LOSSES, Hinge, ModifiedHinge, Ramp, make_loss

ALL = [make_loss(name, delta=0.2) for name in LOSSES] + [
    ModifiedHinge(delta=0.05),
    ModifiedHinge(delta=0.3, form="printed"),
]
KINKS = {"hinge": [1.0], "ramp": [0.0, 1.0], "squared_ramp": [0.0, 1.0]}


def _away_from_kinks(loss, m):
    kinks = list(KINKS.get(loss.name, []))
    if loss.name == "modified_hinge" and loss.form == "printed":
        kinks.append(1.0 - loss.delta)
    keep = np.ones_like(m, dtype=bool)
    for k in kinks:
        keep &= np.abs(m - k) > 1e-3
    return m[keep]


@pytest.mark.parametrize("loss", ALL, ids=lambda loss: f"{loss.name}")
def test_derivative_matches_finite_differences(loss):
    m = _away_from_kinks(loss, np.linspace(-3, 4, 701))
    h = 1e-6
    fd = (loss.value(m + h) - loss.value(m - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(m), fd, atol=1e-5)


@pytest.mark.parametrize("loss", ALL, ids=lambda loss: f"{loss.name}")
def test_continuous_and_nonnegative(loss):
    m = np.linspace(-3, 4, 70001)
    v = loss.value(m)
    assert np.all(v >= 0)
    assert np.max(np.abs(np.diff(v))) < 1e-3  # no jumps on a 1e-4 grid


@pytest.mark.parametrize("loss", ALL, ids=lambda loss: f"{loss.name}")
def test_convexity_flag_is_true(loss):
    m = np.linspace(-3, 4, 2001)
    second = np.diff(loss.value(m), 2)
    if loss.convex:
        assert second.min() > -1e-12
    else:
        assert second.min() < -1e-6


def test_known_values():
    m = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(Hinge().value(m), [2, 1, 0.5, 0, 0])
    np.testing.assert_allclose(
        make_loss("squared_hinge").value(m), [2, 0.5, 0.125, 0, 0]
    )
    np.testing.assert_allclose(Ramp().value(m), [1, 1, 0.5, 0, 0])
    np.testing.assert_allclose(
        make_loss("squared_ramp").value(m), [0.5, 0.5, 0.125, 0, 0]
    )


def test_ramp_dc_split():
    m = np.linspace(-3, 3, 601)
    ramp = Ramp()
    np.testing.assert_allclose(
        ramp.value(m), ramp.convex_part.value(m) - ramp.concave_part(m)
    )


@pytest.mark.parametrize("delta", [0.01, 0.1, 0.5])
def test_modified_hinge_c1_at_the_joint(delta):
    loss = ModifiedHinge(delta=delta)
    joint = 1.0 - delta
    eps = 1e-9
    assert loss.value(joint) == pytest.approx(delta)
    assert loss.derivative(joint - eps) == pytest.approx(-1.0)
    assert loss.derivative(joint + eps) == pytest.approx(-1.0, abs=1e-6)
    m = np.linspace(-3, 5, 4001)
    assert np.max(np.abs(loss.value(m) - Hinge().value(m))) <= delta + 1e-12


def test_printed_modified_hinge_has_a_slope_jump():
    delta = 0.2
    loss = ModifiedHinge(delta=delta, form="printed")
    joint = 1.0 - delta
    assert loss.value(joint) == pytest.approx(delta)
    assert loss.derivative(joint - 1e-9) == pytest.approx(-1.0)
    assert loss.derivative(joint + 1e-9) == pytest.approx(-delta)


def test_second_derivative_of_modified_hinge():
    loss = ModifiedHinge(delta=0.1)
    m = np.linspace(0.95, 3, 200)
    h = 1e-6
    fd = (loss.derivative(m + h) - loss.derivative(m - h)) / (2 * h)
    np.testing.assert_allclose(loss.second_derivative(m), fd, rtol=1e-4, atol=1e-6)


def test_bad_loss_parameters():
    with pytest.raises(UnknownNameError, match="hinge"):
        make_loss("logistic")
    with pytest.raises(ParameterError, match="delta"):
        ModifiedHinge(delta=0.0)
    with pytest.raises(ParameterError, match="delta"):
        ModifiedHinge(delta=float("nan"))


# --- Parameter bounds: every parameter of every loss, at both ends ------------------
#
# Hinge, squared hinge, ramp and squared ramp have no parameter (the ramp is cut at
# m = 0, Sugiyama 27.6.3). The modified hinge has delta in the open interval
# (0, 1) (Lee 2006 eq. 6: the joint 1 - delta lies in (0, 1)) and form.


@pytest.mark.parametrize("name", ["hinge", "squared_hinge", "ramp", "squared_ramp"])
def test_losses_without_parameters_take_none(name):
    loss = LOSSES[name]()
    assert loss == make_loss(name)
    with pytest.raises(TypeError):
        LOSSES[name](0.5)  # no field to set


OUT_OF_RANGE = [
    0.0,  # lower end, excluded
    -0.0,
    -1e-12,
    -0.5,
    1.0,  # upper end, excluded
    1.0 + 1e-12,
    1.5,
    100.0,
    float("inf"),
    float("-inf"),
    float("nan"),
    np.float64(1.0),
    np.float64(0.0),
    np.int64(1),
    np.int64(0),
]


def _plain(message: str) -> None:
    """One sentence for a student: no numpy reprs, no library text."""
    assert "np." not in message and "numpy" not in message
    assert "ufunc" not in message and "dtype" not in message
    assert message.endswith(".")


@pytest.mark.parametrize("delta", OUT_OF_RANGE, ids=repr)
def test_modified_hinge_delta_outside_the_open_unit_interval_is_refused(delta):
    for build in (
        lambda: ModifiedHinge(delta=delta),
        lambda: ModifiedHinge(delta=delta, form="printed"),
        lambda: make_loss("modified_hinge", delta=delta),
    ):
        with pytest.raises(ParameterError, match="delta must be") as info:
            build()
        assert "between 0 and 1" in str(info.value)
        _plain(str(info.value))


@pytest.mark.parametrize("delta", ["0.1", None, [0.1], True, 1j], ids=repr)
def test_modified_hinge_delta_that_is_not_a_number_is_refused(delta):
    with pytest.raises(ParameterError, match="delta must be a number") as info:
        ModifiedHinge(delta=delta)
    assert isinstance(info.value, SvmlabError)
    _plain(str(info.value))


@pytest.mark.parametrize("delta", [1e-6, 0.5, 1.0 - 1e-9, np.float64(0.25), 0.999])
def test_modified_hinge_delta_just_inside_both_ends_is_accepted(delta):
    for form in ("c1", "printed"):
        loss = ModifiedHinge(delta=delta, form=form)
        m = np.linspace(-3.0, 5.0, 801)
        v = loss.value(m)
        assert np.all(np.isfinite(v)) and np.all(v >= 0)
        # The joint value is delta in both forms.
        assert loss.value(1.0 - delta) == pytest.approx(delta, rel=1e-12)


@pytest.mark.parametrize("form", ["C1", "c2", "", None, 1])
def test_modified_hinge_form_must_be_c1_or_printed(form):
    with pytest.raises(ParameterError, match="form must be 'c1' or 'printed'") as info:
        ModifiedHinge(form=form)
    _plain(str(info.value))
