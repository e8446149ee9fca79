"""The script states the browser tests wait on: a log of stApp's
``data-test-script-state`` values and of the server's messages, kept in the
page (``window.__svmlabStates``), and the conditions read from it."""

from __future__ import annotations

# Records every value of stApp's `data-test-script-state` attribute
# (initial / running / notRunning / rerunRequested / compilationError).
# `attributeOldValue` lets us rebuild the whole sequence even when several
# changes land in one mutation batch, so a short `running` is never missed.
# Streamlit's React front end may still never show `running`: a short rerun
# whose first and last server messages are handled in one render (the page was
# busy drawing a chart meanwhile) goes from `notRunning` to `notRunning`. So
# each server message is logged too (`message`, its time in
# `window.__svmlabLastMessage`): see RERUN_DONE_JS.
STATE_LOG_JS = r"""
(() => {
  if (window.__svmlabStates) return;
  const log = window.__svmlabStates = [];
  // Which document the log belongs to: a reload (the theme selector reloads
  // the page once) starts a new log and a new performance.now() clock.
  window.__svmlabDocument = Math.random();
  const push = (s) => { if (s && log[log.length - 1] !== s) log.push(s); };
  window.__svmlabLastMessage = 0;
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => {
        window.__svmlabLastMessage = performance.now();
        push('message');
      });
    }
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' && r.attributeName === 'data-test-script-state') {
        push(r.oldValue);
      }
    }
    const app = document.querySelector('[data-testid="stApp"]');
    if (app) push(app.getAttribute('data-test-script-state'));
  }).observe(document, {
    subtree: true, childList: true, attributes: true, attributeOldValue: true,
    attributeFilter: ['data-test-script-state'],
  });
})();
"""

# The opening statements of a wait condition: false until the app is connected
# and idle; then `seen` is the state log from index `since` on.
IDLE_SINCE_JS = r"""
  const log = window.__svmlabStates || [];
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  const state = app.getAttribute('data-test-script-state');
  if (state !== 'notRunning' && state !== 'compilationError') return false;
  const seen = log.slice(since);
"""

# True once the app is connected and idle, and has been `running` at some
# index >= `since` of the state log; or, when `running` never showed, once
# server messages came since `since` and none for QUIET_MS (the rerun ended:
# a script still running would have shown `running` by then).
QUIET_MS = 250
RERUN_DONE_JS = (
    "(since) => {"
    + IDLE_SINCE_JS
    + f"""
  if (seen.includes('running')) return true;
  return seen.includes('message')
    && performance.now() - window.__svmlabLastMessage > {QUIET_MS};
}}
"""
)
