"""Explore's side of the lecture hall (issue 45): the lecturer's room, what it
publishes, the questions and the answers on the projector; a branched-off
student's banner.

- The "Room" popover opens a room (:mod:`svmlab.ui.hall.backend`'s store: this
  process, or Redis), shows its code and link, pauses, closes and asks a
  question: the preset's (:data:`svmlab.ui.hall.questions.QUESTIONS`) or one
  typed on the spot.
- :func:`publish`, after each run of the page's fragment: the main view
  (the decision figure at its normal scale, the numbers, the preset's paragraph,
  a caption, the settings' link) encoded once (:func:`svmlab.ui.hall.view.view_parts`)
  and handed to the store, which sends followers only the parts that changed.
  No follower's session runs for it: followers are pages of the server's own
  routes (:mod:`svmlab.ui.hall.routes`).
- :func:`room_row`, beside the numbers, reruns by itself every second (a
  fragment of its own): the code big, how many follow and how many branched
  off, and with a question open the room's answers as they arrive (who
  answered, a bar per choice, a histogram or the clicks' density), "Reveal"
  (the true value, measured now, beside the room's answers; the page moves to
  the answer's settings, and every follower with it) and "End".
- :func:`banner`: a student who pressed "Try it yourself" on a follower's page
  lands on Explore with the lecturer's settings and ``from_room=CODE``; the
  banner follows the room's status live (its own event stream, counted as
  branched off) with "Back to the lecturer".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlencode, urlparse

import numpy as np
import streamlit as st

from svmlab import SvmlabError, figures
from svmlab.errors import FitCancelled
from svmlab.ui.explore import cache, controls, lecture, panels
from svmlab.ui.frame.presets import PRESETS
from svmlab.ui.hall import backend, codes, questions
from svmlab.ui.hall.limits import Refusal
from svmlab.ui.hall.routes import COOKIE
from svmlab.ui.hall.view import view_parts
from svmlab.user_text import for_html, for_markdown

__all__ = [
    "OWN_KEY",
    "banner",
    "popover",
    "publish",
    "remember_room",
    "room_row",
    "title_popover",
]

#: ``(code, owner token)`` of the room this session opened.
OWN_KEY = "hall_own"
#: A sentence to show once in the popover (a cap reached).
NOTE_KEY = "hall_note"
#: The question asked: ``{"question": Question, "public": dict, "truth": ...}``.
ASKED_KEY = "hall_asked"
#: What was published last (settings, edits): a run that changed nothing
#: encodes nothing.
PUBLISHED_KEY = "hall_published"
#: A branched-off student's room code (from ``?from_room=``).
FROM_KEY = "hall_from_room"
_RERUN_KEY = "hall_rerun_app"
#: How often the room's row looks at the store (seconds).
LIVE_SECONDS = 1.0


def _session() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "bare"


def visitor() -> str:
    """This browser (the app's visitor cookie), else this session."""
    try:
        cookie = st.context.cookies.get(COOKIE)
    except Exception:  # no request behind this run (a test)
        cookie = None
    return str(cookie) if cookie else f"session:{_session()}"


def own() -> tuple[str, str] | None:
    """``(code, owner)`` of this session's open room, else None."""
    mine = st.session_state.get(OWN_KEY)
    if mine is None:
        return None
    if not backend.store().owner_of(*mine):
        st.session_state.pop(OWN_KEY, None)
        st.session_state.pop(ASKED_KEY, None)
        return None
    return mine


# -- the owner's actions ------------------------------------------------------------


def _open() -> None:
    try:
        code, owner = backend.store().open(visitor(), _session())
    except Refusal as refusal:
        st.session_state[NOTE_KEY] = str(refusal)
        return
    st.session_state[OWN_KEY] = (code, owner)
    st.session_state.pop(PUBLISHED_KEY, None)


def _close() -> None:
    mine = st.session_state.pop(OWN_KEY, None)
    st.session_state.pop(ASKED_KEY, None)
    if mine is not None:
        backend.store().close(*mine)


def _pause() -> None:
    mine = own()
    if mine is not None:
        paused = bool(st.session_state.get("hall_pause"))
        backend.store().set_paused(*mine, paused)


def _bounds() -> list[float] | None:
    """The plane's ``[x0, x1, y0, y1]`` of the last picture (a point answer
    must lie in it)."""
    picture = cache.last_good()
    if picture is None:
        return None
    return [float(b) for b in picture.data.bounds]


def _ask(question: questions.Question, truth: Any = None) -> None:
    mine = own()
    if mine is None:
        return
    public = question.public(_bounds() if question.kind == "point" else None)
    if backend.store().ask(*mine, public) is not None:
        st.session_state[ASKED_KEY] = {
            "question": question,
            "public": public,
            "truth": truth,
        }


def _ask_typed() -> None:
    """A question typed on the spot (the popover's form)."""
    state = st.session_state
    kind = state.get("hall_kind", "choice")
    prompt = str(state.get("hall_prompt", "")).strip()
    if not prompt:
        state[NOTE_KEY] = "Type the question first."
        return
    choices: tuple[str, ...] = ()
    truth: Any = None
    if kind == "choice":
        typed = str(state.get("hall_choices", "")).split(";")
        choices = tuple(c.strip() for c in typed if c.strip())[: questions.MAX_CHOICES]
        if len(choices) < 2:
            state[NOTE_KEY] = "A choice needs at least two choices, separated by ';'."
            return
        right = str(state.get("hall_right", "")).strip()
        truth = choices.index(right) if right in choices else None
    elif kind == "number":
        try:
            text = str(state.get("hall_right", "")).strip()
            truth = float(text) if text else None
        except ValueError:
            state[NOTE_KEY] = "The right answer must be a number (or empty)."
            return
    _ask(questions.Question(kind, prompt, choices=choices), truth)


def _end() -> None:
    mine = own()
    if mine is not None:
        backend.store().end_question(*mine)
    st.session_state.pop(ASKED_KEY, None)


def _reveal(settings: Any, edits: Any) -> None:
    """Measure the true value, show it with the room's answers to everybody,
    and move the page to the answer's settings."""
    mine = own()
    asked = st.session_state.get(ASKED_KEY)
    if mine is None or asked is None:
        return
    question: questions.Question = asked["question"]
    values = [a.value for a in backend.store().answers(mine[0])]
    summary = questions.summary(asked["public"], values)
    target = replace(settings, **dict(question.reveal))
    try:
        truth, text = _truth(question, asked, settings, edits, values)
        if question.kind == "choice" and question.options and truth is not None:
            target = replace(settings, **dict(question.options[truth]))
    except FitCancelled:
        return
    except SvmlabError as error:
        st.session_state[NOTE_KEY] = str(error)
        return
    backend.store().reveal(*mine, {"truth": truth, "text": text, "summary": summary})
    if target != settings:
        controls.apply_settings(target)
        st.session_state[_RERUN_KEY] = True


def _truth(
    question: questions.Question,
    asked: dict[str, Any],
    settings: Any,
    edits: Any,
    values: list[Any],
) -> tuple[Any, str]:
    if question.kind == "point":
        record = cache.fit_settings(replace(settings, **dict(question.reveal)), edits)
        f = record.model.decision_function(np.asarray(values)) if values else []
        return None, questions.margin_share(f)[1]
    if question.measure:

        def measure_at(changes: questions.Changes) -> float:
            record = cache.fit_settings(replace(settings, **dict(changes)), edits)
            return questions.MEASURES[question.measure](record)

        return questions.truth_of(question, measure_at)
    truth = asked.get("truth")
    if truth is None:
        return None, ""
    if question.kind == "choice":
        return truth, f"The answer: {question.choices[truth]}."
    return truth, f"The answer: {truth:g}{question.unit}."


# -- what the room sees -------------------------------------------------------------


def _caption(settings: Any, record: Any) -> str:
    kernel = settings.kernel
    width = f" · σ = {settings.sigma:g}" if kernel == "gaussian" else ""
    C = "∞" if settings.effective_C == float("inf") else f"{settings.effective_C:g}"
    text = (
        f"{settings.dataset.replace('_', ' ')} · {len(record.y)} points · "
        f"{kernel} kernel · {settings.loss.replace('_', ' ')} · C = {C}{width}"
    )
    if settings.preset in PRESETS:
        changed = lecture.changes_from(PRESETS[settings.preset], settings)
        if changed:
            text += " · changed since the preset: " + ", ".join(changed)
    return text


def publish(settings: Any, edits: Any, record: Any, build_spec: Any) -> None:
    """The lecturer's main view to the room (a room is open, and the view
    changed): ``build_spec()`` draws the decision figure at its normal scale."""
    mine = own()
    if mine is None:
        return
    shown = (replace(settings, classroom=False), edits, mine[0])
    if st.session_state.get(PUBLISHED_KEY) == shown:
        return
    preset = PRESETS.get(settings.preset) if settings.preset else None
    link = urlencode(replace(settings, classroom=False).to_query())
    parts = view_parts(
        build_spec(),
        panels.number_cells(record),
        highlight=preset.number if preset else None,
        big=panels.CLASSROOM_NUMBERS,
        title=preset.title if preset else "",
        look=preset.look if preset else "",
        caption=_caption(settings, record),
        link=link,
    )
    if backend.store().publish(*mine, parts) is not None:
        st.session_state[PUBLISHED_KEY] = shown


def _room_link(code: str) -> str:
    try:
        url = urlparse(str(st.context.url))
        origin = f"{url.scheme}://{url.netloc}" if url.netloc else ""
    except Exception:  # no request behind this run (a test)
        origin = ""
    return f"{origin}/room/{code}"


def popover(where: Any, settings: Any = None) -> None:
    """The "Room" popover: open a room, or its link, pause, close and a
    question."""
    state = st.session_state
    mine = own()
    with where.popover("Room", help="Let the room follow this screen."):
        note = state.pop(NOTE_KEY, None)
        if note:
            st.warning(note)
        if mine is None:
            st.button(
                "Open a room",
                key="hall_open",
                on_click=_open,
                help="Students open the room's link on their own devices and see "
                "this page's figure and numbers follow yours.",
            )
            st.link_button("Follow a room", "/room")
            return
        code = mine[0]
        info = backend.store().info(code)
        st.markdown(f"Room **{codes.shown(code)}**")
        st.code(_room_link(code), language=None)
        st.toggle(
            "pause the room",
            value=bool(info and info.state == "paused"),
            key="hall_pause",
            on_change=_pause,
            help="Followers keep what they see until you resume.",
        )
        st.button("Close the room", key="hall_close", on_click=_close)
        if info is not None and info.question is None:
            _question_form(settings)


def _question_form(settings: Any) -> None:
    st.markdown("**Ask the room**")
    preset = settings.preset if settings is not None else ""
    question = questions.QUESTIONS.get(preset)
    if question is not None:
        st.button(
            f"Ask: {question.prompt}",
            key="hall_ask_preset",
            on_click=_ask,
            args=(question,),
        )
    st.radio(
        "kind",
        ("choice", "number", "point"),
        key="hall_kind",
        horizontal=True,
        format_func={
            "choice": "a choice",
            "number": "a number",
            "point": "a point on the plane",
        }.get,
    )
    st.text_input("question", key="hall_prompt", max_chars=questions.PROMPT_CHARS)
    kind = st.session_state.get("hall_kind", "choice")
    if kind == "choice":
        st.text_input("choices, separated by ';'", key="hall_choices", max_chars=240)
    if kind != "point":
        st.text_input("the right answer (optional)", key="hall_right", max_chars=40)
    st.button("Ask", key="hall_ask", on_click=_ask_typed)


def title_popover(where: Any, classroom: bool, settings: Any = None) -> None:
    """In classroom mode, before a room is open: the popover in the title row
    (the row beside the numbers, :func:`room_row`, shows only an open room)."""
    if classroom and own() is None:
        popover(where, settings)


def room_row(
    settings: Any, edits: Any = None, plane: dict[str, Any] | None = None
) -> None:
    """Beside the numbers: the popover and, once a room is open, its code and
    counts (:func:`_live_counts`) and under them, with a question open, the
    room's answers (:func:`_live_answers`), both live. In classroom mode only
    once a room is open (the popover sits in the title row until then,
    :func:`title_popover`)."""
    mine = own()
    if settings.classroom and mine is None:
        return
    left, right = st.columns([1.4, 3], vertical_alignment="center")
    popover(left, settings)
    if mine is None:
        return
    with right:
        _live_counts(mine[0])
    _live_answers(mine[0], settings, edits, plane)


@st.fragment(run_every=LIVE_SECONDS)
def _live_counts(code: str) -> None:
    """The room's code, how many follow and branched off: every second."""
    store = backend.store()
    info = store.info(code)
    if info is None or own() is None:
        st.caption("The room is closed.")
        return
    counts = store.counts(code)
    status = {"paused": " · paused", "gone": " · your page was away"}.get(
        info.state, ""
    )
    st.html(
        '<div data-svmlab-room style="font-size:1.1rem;font-weight:600;'
        'line-height:1.2"><span style="font-size:1.9rem;letter-spacing:0.12em">'
        f"{for_html(codes.shown(code))}</span><br>"
        f"<span data-svmlab-counts>{counts.following} following · "
        f"{counts.branched} branched off{status}</span></div>"
    )


@st.fragment(run_every=LIVE_SECONDS)
def _live_answers(
    code: str, settings: Any, edits: Any, plane: dict[str, Any] | None
) -> None:
    """The question's answers as they arrive: every second."""
    store = backend.store()
    info = store.info(code)
    asked = st.session_state.get(ASKED_KEY)
    if info is not None and info.question is not None and asked is not None:
        following = store.counts(code).following
        _answers(code, info.question, asked, following, settings, edits, plane)
    if st.session_state.pop(_RERUN_KEY, False):
        st.rerun(scope="app")


def _answers(
    code: str,
    public: dict[str, Any],
    asked: dict[str, Any],
    following: int,
    settings: Any,
    edits: Any,
    plane: dict[str, Any] | None,
) -> None:
    answers = backend.store().answers(code)
    values = [a.value for a in answers]
    revealed = public.get("reveal")
    st.markdown(f"**{for_markdown(public['prompt'])}**")
    st.caption(f"{len(answers)} answered of {following} following")
    summary = revealed["summary"] if revealed else questions.summary(public, values)
    truth = revealed["truth"] if revealed else None
    spec = figures.answers_spec(
        public["kind"],
        summary,
        choices=public.get("choices", ()),
        unit=public.get("unit", ""),
        truth=truth,
        plane=plane,
        height=260,
    )
    panels.plotly_chart(spec, key="hall_answers_chart")
    if revealed and revealed.get("text"):
        st.success(revealed["text"])
    names = sorted({a.name for a in answers if a.name})
    if names:
        shown = ", ".join(for_markdown(n) for n in names[:40])
        more = f" and {len(names) - 40} more" if len(names) > 40 else ""
        anonymous = len(answers) - sum(1 for a in answers if a.name)
        st.caption(f"Answered: {shown}{more} (and {anonymous} without a name)")
    # A row that wraps: in the projector's narrow column two halves cut
    # "End the question" short.
    row = st.container(horizontal=True)
    if not revealed:
        row.button(
            "Reveal",
            key="hall_reveal",
            type="primary",
            on_click=_reveal,
            args=(settings, edits),
        )
    row.button("End the question", key="hall_end", on_click=_end)


# -- a branched-off student ---------------------------------------------------------

_BANNER_JS = r"""
export default function (component) {
  const { data, parentElement } = component;
  const code = data && data.code;
  if (!code) return;
  let box = parentElement.querySelector(":scope > .svmlab-branched");
  if (!box) {
    box = document.createElement("div");
    box.className = "svmlab-branched";
    box.setAttribute("role", "status");
    const text = document.createElement("span");
    const back = document.createElement("a");
    back.textContent = "Back to the lecturer";
    back.href = "/room/" + encodeURIComponent(code);
    back.target = "_self";
    box.append(text, back);
    parentElement.append(box);
  }
  const text = box.firstChild;
  const shown = code.slice(0, 3) + " " + code.slice(3);
  const said = {
    live: "You branched off room " + shown + ": the lecturer goes on without you.",
    paused: "You branched off room " + shown + " (the lecturer paused it).",
    gone: "You branched off room " + shown + " (the lecturer's screen is away).",
    closed: "Room " + shown + " is closed: this page is yours now.",
  };
  box.dataset.state = box.dataset.state || "connecting";
  if (!text.textContent) text.textContent = said.live;
  if (box.__source && box.__code === code) return;
  if (box.__source) box.__source.close();
  const source = new EventSource("/room/" + encodeURIComponent(code) +
    "/events?as=branched");
  box.__source = source;
  box.__code = code;
  source.addEventListener("status", (e) => {
    const state = JSON.parse(e.data).state;
    box.dataset.state = state;
    text.textContent = said[state] || state;
    box.lastChild.hidden = state === "closed";
    if (state === "closed") source.close();
  });
  source.addEventListener("refused", (e) => {
    source.close();
    box.dataset.state = "refused";
    text.textContent = JSON.parse(e.data).text;
  });
  return () => { source.close(); box.__source = null; };
}
"""
_BANNER_CSS = """
.svmlab-branched { display:flex; gap:1rem; align-items:center; flex-wrap:wrap;
  padding:0.5rem 0.8rem; border-radius:0.5rem; background:rgba(0,114,178,0.12); }
.svmlab-branched[data-state="closed"], .svmlab-branched[data-state="refused"] {
  background:rgba(213,94,0,0.12); }
.svmlab-branched a { font-weight:600; }
"""
_banner = st.components.v2.component(
    "svmlab_hall_branched", js=_BANNER_JS, css=_BANNER_CSS, isolate_styles=False
)


def remember_room() -> None:
    """Keep a ``?from_room=CODE`` link's room for the session (before the
    page's settings rewrite the link, which does not carry it)."""
    typed = st.query_params.get("from_room")
    if typed:
        code = codes.normalize(typed)
        if code:
            st.session_state[FROM_KEY] = code


def banner() -> None:
    """A branched-off student's line at the top of Explore (the room of
    :func:`remember_room`): the room's status, live, and the way back."""
    code = st.session_state.get(FROM_KEY)
    if code:
        _banner(key="hall_branched", data={"code": code}, height="content")
