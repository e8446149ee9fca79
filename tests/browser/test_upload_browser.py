"""CSV upload on the Explore page in Chromium: the real file uploader.

``tests/test_upload_page.py`` sends every file of ``tests/data/csv`` through
AppTest; this test checks what AppTest cannot: the browser's uploader (type
filter and the 5 MB cap of ``.streamlit/config.toml``, enforced by the
frontend), the messages as drawn, and the download button's file. One page, many
uploads.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from playwright.sync_api import expect

from svmlab.datasets import csv_data

CSV = Path(__file__).resolve().parents[1] / "data" / "csv"
MALFORMED = json.loads((CSV / "EXPECTED.json").read_text())["malformed"]
EXPECTED = {case["file"]: case for case in MALFORMED}
BAD = [
    "latin1.csv",
    "utf16.csv",
    "excel_renamed.csv",
    "ragged_row.csv",
    "formula_in_feature.csv",
    "nan_feature.csv",
    "three_classes.csv",
    "too_many_rows.csv",
]
SV_JS = """() => {
  const m = document.querySelector('[data-svmlab-number="support vectors"]');
  return m ? m.innerText : null;
}"""
ERROR = '[data-testid="stAlertContentError"]'


IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning';
}"""


def _upload(page, path: Path, wait_for_rerun, shows: str | None = None) -> None:
    """Upload ``path`` and wait until the sidebar shows ``shows`` (the expected
    message, or the file's description) with the app idle: replacing a file
    reruns the app twice (old file removed, new file added)."""
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        str(path)
    )
    wait_for_rerun(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar).to_contain_text(shows or f"{path.name}: ", timeout=30_000)
    page.wait_for_function(IDLE_JS, timeout=30_000)


def _state(page) -> tuple[str, str, str]:
    """(support vectors, typed C, upload key in the URL)."""
    url = page.url
    key = url.split("upload=")[1].split("&")[0] if "upload=" in url else ""
    return (
        page.evaluate(SV_JS),
        page.locator(".st-key-explore_C input").input_value(),
        key,
    )


def test_uploads_in_the_browser(
    page, browser_log, streamlit_url, wait_for_rerun, tmp_path
) -> None:
    page.goto(f"{streamlit_url}/Explore?C=4.7&n=60")
    wait_for_rerun(page)
    page.locator(".st-key-explore_source").get_by_text("Upload CSV").click()
    # Wait for what the rerun draws, not for the rerun: with everything cached it
    # can finish inside one React render, and the script-state attribute we log
    # then never reads "running" (seen after the soak warmed every cache).
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').wait_for(
        state="attached"
    )
    page.evaluate("() => { const l = window.__svmlabStates; l._cursor = l.length; }")
    assert page.locator(ERROR).count() == 0

    _upload(page, CSV / "good_string_labels.csv", wait_for_rerun)
    assert page.locator(ERROR).count() == 0
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "'cat' → class −1, 'dog' → class +1" in sidebar
    shown = _state(page)
    assert shown[0].endswith("/ 8") and shown[1] == "4.7" and len(shown[2]) == 12

    for name in BAD:
        _upload(page, CSV / name, wait_for_rerun, EXPECTED[name]["phrase"])
        errors = page.locator(f'[data-testid="stSidebar"] {ERROR}').all_inner_texts()
        assert len(errors) == 1 and EXPECTED[name]["phrase"] in errors[0], errors
        # Said in the main pane too, where a projector's screen shows it.
        main = page.locator(f'[data-testid="stMain"] {ERROR}').all_inner_texts()
        assert len(main) == 1 and EXPECTED[name]["phrase"] in main[0], main
        assert _state(page) == shown, name
        assert (
            "still shows good_string_labels.csv"
            in page.locator('[data-testid="stSidebar"]').inner_text()
        )

    # Over the 5 MB cap: the browser refuses the file; nothing reaches the page.
    big = tmp_path / "big.csv"
    row = b"0.5,1.25,1\n"
    big.write_bytes(b"x1,x2,label\n" + row * (6 * 2**20 // len(row)))
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        str(big)
    )
    uploader = page.locator('[data-testid="stFileUploader"]')
    uploader.get_by_text("or smaller").wait_for()
    assert _state(page) == shown

    # The download goes back out in the upload's format: semicolons, decimal
    # commas, its header and labels, in file order.
    source = CSV / "good_semicolon_decimal_comma.csv"
    _upload(page, source, wait_for_rerun)
    assert page.locator(ERROR).count() == 0
    with page.expect_download() as info:
        page.get_by_role("button", name="Download data (CSV)").click()
    download = info.value
    assert download.suggested_filename == "good_semicolon_decimal_comma_svmlab.csv"
    data = Path(download.path()).read_bytes()
    back = csv_data.read_table(data)
    original = csv_data.read_table(source.read_bytes())
    assert (back.delimiter, back.decimal_comma, back.columns) == (
        ";",
        True,
        original.columns,
    )
    X, y, labels = csv_data.to_dataset(back)
    X0, y0, labels0 = csv_data.to_dataset(original)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    assert labels == labels0
    assert not browser_log.page_errors, browser_log.page_errors
