"""The site's HTML: the index of lessons and one page per lesson. Every URL is relative, so the
site works from any folder of any static host."""
from __future__ import annotations

import json
from html import escape

from .lessons import Lesson

SITE_TITLE = "Tensor parallelism, hands on"
LANGUAGE_NAMES = {"en": "English", "pl": "Polski"}
LANG_STORAGE_KEY = "tp-course:lang"
# Two "GPU" blocks; inline, so no page asks for a favicon.ico the site does not have.
FAVICON = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
           "%3Crect x='1' y='3' width='6' height='10' rx='1' fill='%232456c9'/%3E"
           "%3Crect x='9' y='3' width='6' height='10' rx='1' fill='%23e07b00'/%3E%3C/svg%3E")


def _head(title: str, prefix: str, assets: dict[str, str], extra: str = "", lang: str = "en") -> str:
    return f"""<!doctype html>
<html lang="{lang}" data-page-lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" href="{FAVICON}">
<link rel="stylesheet" href="{prefix}assets/{assets['page.css']}">
{extra}</head>
"""


def index_page(lessons: list[Lesson], assets: dict[str, str]) -> str:
    items = "\n".join(
        f"""  <li><a href="lessons/{escape(l.id)}/index.html"><span class="lesson-title">{escape(l.title)}</span></a>
    <p>{escape(l.summary)}</p></li>""" for l in lessons)
    return _head(SITE_TITLE, "", assets) + f"""<body class="index-page">
<header class="site-header"><span class="site-name">{escape(SITE_TITLE)}</span></header>
<main class="index">
<h1>{escape(SITE_TITLE)}</h1>
<p>Split a transformer's layers across GPUs the way Megatron-LM does, and check your own code in
the browser: Python runs on this page, nothing is installed.</p>
<h2>Lessons</h2>
<ol class="lesson-list">
{items}
</ol>
</main>
</body>
</html>
"""


def lesson_page(lesson: Lesson, html: str, assets: dict[str, str], config: dict) -> str:
    prefix = "../../"
    langs = lesson.languages
    # Shown language: the default (first) one, or the learner's saved choice, set before the
    # first paint so the prose never flashes in the other language.
    lang_css = "".join(
        f'html[data-page-lang="{l}"] .lang-block:not([data-lang="{l}"]){{display:none}}' for l in langs)
    lang_script = (f"<script>try{{var l=localStorage.getItem({json.dumps(LANG_STORAGE_KEY)});"
                   f"if({json.dumps(langs)}.indexOf(l)>=0){{document.documentElement.dataset.pageLang=l;"
                   f"document.documentElement.lang=l}}}}catch(e){{}}</script>")
    head_extra = (f"<style>{lang_css}</style>\n{lang_script}\n"
                  f'<script id="lesson-config" type="application/json">{_json_for_html(config)}</script>\n'
                  f'<script defer src="{prefix}assets/{assets["page.js"]}"></script>\n')
    switch = ""
    if len(langs) > 1:
        buttons = "".join(
            f'<button type="button" data-lang-choice="{l}" lang="{l}" aria-pressed="false">'
            f"{escape(LANGUAGE_NAMES.get(l, l))}</button>" for l in langs)
        switch = f'<div class="lang-switch" role="group" aria-label="Language">{buttons}</div>'
    downloads = ""
    if lesson.companion:
        links = "".join(f'<li><a href="{escape(rel)}" download>{escape(rel)}</a></li>'
                        for rel in lesson.companion.values())
        downloads = (f'<section class="companion" aria-label="Companion files"><h2>Take it to real GPUs</h2>'
                     f"<p>The same checks with PyTorch and NCCL:</p><ul>{links}</ul></section>")
    return _head(f"{lesson.title} · {SITE_TITLE}", prefix, assets, head_extra, langs[0]) + f"""<body class="lesson-page">
<header class="site-header">
<a class="site-name" href="{prefix}index.html">{escape(SITE_TITLE)}</a>
{switch}
</header>
<main class="lesson-layout">
<article class="prose" id="prose">
{html}
{downloads}
</article>
<section class="workbench" aria-labelledby="workbench-title">
<div class="workbench-head">
<h2 id="workbench-title"><code>solution.py</code></h2>
<div class="toolbar">
<button type="button" id="run" class="primary" aria-keyshortcuts="Control+Enter Meta+Enter">Run</button>
<button type="button" id="stop" disabled>Stop</button>
<button type="button" id="reset">Reset</button>
</div>
</div>
<div class="python-progress" id="python-progress">
<progress id="python-progress-bar" max="1" aria-label="Loading Python"></progress>
<span id="python-progress-text">Loading Python…</span>
</div>
<div class="notice" id="notice" hidden></div>
<div class="editor" id="editor"></div>
<p class="hint">Write the functions, then press <kbd>Run</kbd> or <kbd>Ctrl</kbd>+<kbd>Enter</kbd>. Your code is saved in this browser as you type.</p>
<div class="run-status" id="run-status" role="status" aria-live="polite" aria-label="Run status">Python is loading. You can read and type meanwhile.</div>
<div class="output" id="output" hidden><h3>Printed output</h3><pre id="output-text"></pre></div>
<ul class="results" id="results" aria-label="Check results"></ul>
</section>
</main>
<dialog id="reset-dialog" aria-labelledby="reset-dialog-title">
<form method="dialog">
<p id="reset-dialog-title">Replace your code with the lesson's starter? You can undo this afterwards.</p>
<div class="dialog-buttons"><button value="cancel" type="submit">Cancel</button>
<button value="replace" type="submit" class="primary">Replace with starter</button></div>
</form>
</dialog>
<noscript><p class="noscript">This lesson runs Python in your browser and needs JavaScript.</p></noscript>
</body>
</html>
"""


def _json_for_html(data) -> str:
    """JSON that is safe inside a <script> element."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
