"""What the benchmarks share and are not themselves benchmarks: timing and
reporting (:mod:`~benchmarks.harness.report`: medians, tables, the machine's
load, the one results file per benchmark), the app's server and Chromium
(:mod:`~benchmarks.harness.app_server`, also used by the browser tests), the
browser-side script-state log (:mod:`~benchmarks.harness.script_states`) and
Lee's (C, σ) grid of the model-selection benchmarks
(:mod:`~benchmarks.harness.lee_grid`)."""
