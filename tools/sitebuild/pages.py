"""The site's HTML: the home page (the lessons in course order with each one's progress) and one
page per lesson. Every URL is relative, so the site works from any folder of any static host.

The page's own text is written in English with `data-ui="key"` (web/src/ui-text.js puts it into
the learner's language); lesson titles and summaries are translated through each lesson's
catalog (locale/<lang>.po) and written once per language, shown by the language switch."""
from __future__ import annotations

import json
from html import escape

from companionkit import bundle as companion_bundle
from authorkit import starters
from lessonkit import i18n

from .lessons import Lesson

SITE_TITLE = "Tensor parallelism, hands on"
LANGUAGE_NAMES = {"en": "English", "pl": "Polski"}
# How the built site is served when opened from disk: one command, no install.
SERVE_COMMAND = "python3 -m http.server 8000"
# Two "GPU" blocks; inline, so no page asks for a favicon.ico the site does not have.
FAVICON = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
           "%3Crect x='1' y='3' width='6' height='10' rx='1' fill='%232456c9'/%3E"
           "%3Crect x='9' y='3' width='6' height='10' rx='1' fill='%23e07b00'/%3E%3C/svg%3E")


# The companion section in each language; {nb}, {zip}, {install}, {torchrun} are filled in as HTML.
COMPANION_TEXT = {
    "en": ("Take it to real GPUs",
           "The same checks with PyTorch in N processes: NCCL, one per GPU, when there are two or more GPUs, else "
           "gloo on CPU. Download {nb} (runs alone) or {zip} (notebook, script, README).",
           "Notebook: {install}, open it in Jupyter or Colab, run every cell.",
           "Script: unzip, then {torchrun}."),
    "pl": ("Na prawdziwych GPU",
           "Te same sprawdzenia w PyTorch, w N procesach: NCCL, jeden proces na GPU, gdy są co najmniej dwa GPU, "
           "a bez nich gloo na CPU. Pobierz {nb} (działa samodzielnie) albo {zip} (notatnik, skrypt, README).",
           "Notatnik: {install}, otwórz go w Jupyterze lub Colabie i uruchom wszystkie komórki.",
           "Skrypt: rozpakuj, potem {torchrun}."),
}


def _companion_section(lesson: Lesson) -> str:
    """The companion downloads (written by companionkit.bundle) and how to run them, in two lines."""
    notebook, archive = companion_bundle.NOTEBOOK_NAME, companion_bundle.zip_name(lesson.id)
    script = companion_bundle.script_name(lesson.id, lesson.companion)
    fields = {"nb": f'<a href="{notebook}" download>{notebook}</a>',
              "zip": f'<a href="{archive}" download>{archive}</a>',
              "install": f"<code>{escape(companion_bundle.INSTALL)}</code>",
              "torchrun": f"<code>{escape(companion_bundle.torchrun_line(script))}</code>"}
    blocks = []
    for lang in lesson.languages:
        title, intro, nb_line, script_line = (escape(t).format(**fields) for t in COMPANION_TEXT.get(lang, COMPANION_TEXT["en"]))
        blocks.append(f'<div class="lang-block" data-lang="{lang}" lang="{lang}"><h2>{title}</h2><p>{intro}</p>'
                      f"<ol><li>{nb_line}</li><li>{script_line}</li></ol></div>")
    return f'<section class="companion" aria-label="Companion files" data-ui-aria-label="companionFiles">{"".join(blocks)}</section>'


def _ui(key: str, english: str, tag: str = "span", attrs: str = "") -> str:
    """Page text the front end translates (web/src/ui-text.js holds every language)."""
    return f'<{tag} data-ui="{key}"{attrs}>{escape(english)}</{tag}>'


def _per_lang(texts: dict[str, str]) -> str:
    """One span per language; the page shows the one of its language (the head's CSS)."""
    return "".join(f'<span class="lang-block" data-lang="{l}" lang="{l}">{escape(t)}</span>'
                   for l, t in texts.items())


def lesson_texts(lesson: Lesson) -> dict[str, dict[str, str]]:
    """{"title": {lang: text}, "summary": {lang: text}} through the lesson's catalogs."""
    catalogs = {l: i18n.catalog(l, lesson.path) for l in lesson.languages}
    return {key: {l: c.get(text, text) for l, c in catalogs.items()}
            for key, text in (("title", lesson.title), ("summary", lesson.summary))}


def _head(titles: dict[str, str] | None, prefix: str, assets: dict[str, str], langs: list[str],
          extra: str = "") -> str:
    """`titles`: the lesson's title per language (None on the home page); the tab's title is
    it and the site's name, in the page's language (web/src/language.js puts it in the
    language shown; the HTML holds the first language's)."""
    title = f"{titles[langs[0]]} · {SITE_TITLE}" if titles else SITE_TITLE
    data = f" data-lesson-titles='{escape(json.dumps(titles, ensure_ascii=False))}'" if titles else ""
    # Shown language: the default (first) one, or the learner's saved choice, set before the
    # first paint so the prose never flashes in the other language. The key carries the site's
    # base path, as web/src/storage.js writes it.
    lang_css = "".join(
        f'html[data-page-lang="{l}"] .lang-block:not([data-lang="{l}"]){{display:none}}' for l in langs)
    lang_script = (f"<script>try{{var l=localStorage.getItem('tp-course:'+new URL({json.dumps(prefix or './')},"
                   f"location.href).pathname+':lang');if({json.dumps(langs)}.indexOf(l)>=0){{"
                   f"document.documentElement.dataset.pageLang=l;document.documentElement.lang=l}}}}catch(e){{}}</script>")
    return f"""<!doctype html>
<html lang="{langs[0]}" data-page-lang="{langs[0]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title{data}>{escape(title)}</title>
<link rel="icon" href="{FAVICON}">
<link rel="stylesheet" href="{prefix}assets/{assets['page.css']}">
<style>{lang_css}</style>
{lang_script}
{extra}<script defer src="{prefix}assets/{assets["page.js"]}"></script>
</head>
"""


def _switch(langs: list[str]) -> str:
    if len(langs) < 2:
        return ""
    buttons = "".join(
        f'<button type="button" data-lang-choice="{l}" lang="{l}" aria-pressed="false">'
        f"{escape(LANGUAGE_NAMES.get(l, l))}</button>" for l in langs)
    return f'<div class="lang-switch" role="group" aria-label="Language" data-ui-aria-label="language">{buttons}</div>'


def index_page(lessons: list[Lesson], assets: dict[str, str]) -> str:
    """The lessons in course order; the front end adds each one's state and a continue link."""
    langs = list(dict.fromkeys(l for lesson in lessons for l in lesson.languages)) or ["en"]
    items = []
    for lesson in lessons:
        texts = lesson_texts(lesson)
        items.append(
            f'  <li data-lesson-id="{escape(lesson.id)}" data-state="new">'
            f'<a href="lessons/{escape(lesson.id)}/index.html"><span class="lesson-title">'
            f'{_per_lang(texts["title"])}</span></a> '
            f'<span class="lesson-state">{_ui("notStarted", "not started")}</span>'
            f'\n    <p>{_per_lang(texts["summary"])}</p></li>')
    return _head(None, "", assets, langs) + f"""<body class="index-page">
<header class="site-header">{_ui("siteName", SITE_TITLE, attrs=' class="site-name"')}{_switch(langs)}</header>
<main class="index">
{_ui("siteName", SITE_TITLE, "h1")}
{_ui("intro", "Split a transformer's layers across GPUs the way Megatron-LM does, and check your own code in the browser: Python runs on this page, nothing is installed. The number of GPUs one layer is split over is the TP (tensor-parallel) degree, n.", "p")}
<p class="continue" id="continue" hidden><a class="primary-link"></a></p>
{_ui("lessons", "Lessons", "h2")}
<ol class="lesson-list">
{chr(10).join(items)}
</ol>
</main>
</body>
</html>
"""


def _lesson_link(lesson: Lesson | None, key: str, english: str, rel: str) -> str:
    if lesson is None:
        return "<span></span>"
    return (f'<a rel="{rel}" href="../{escape(lesson.id)}/index.html">{_ui(key, english)} '
            f'{_per_lang(lesson_texts(lesson)["title"])}</a>')


def lesson_page(lesson: Lesson, html: str, assets: dict[str, str], config: dict,
                previous: Lesson | None = None, following: Lesson | None = None) -> str:
    prefix = "../../"
    # The starter in the page's other languages (its docstrings through the lesson's catalogs):
    # the editor opens with the one of the language shown (web/src/storage.js).
    config = {**config, "lesson": {**config["lesson"], "translatedStarters": starters.in_languages(lesson)}}
    head_extra = f'<script id="lesson-config" type="application/json">{_json_for_html(config)}</script>\n'
    downloads = ""
    if lesson.companion:
        downloads = _companion_section(lesson)
    nav = ""
    if previous or following:
        nav = (f'<nav class="lesson-nav" aria-label="Lessons" data-ui-aria-label="courseNav">'
               f'{_lesson_link(previous, "previous", "Previous:", "prev")}'
               f'{_lesson_link(following, "next", "Next:", "next")}</nav>')
    if following:
        after_pass = (f'{_ui("nextAfterPass", "You passed this lesson. Next lesson:")} '
                      f'<a href="../{escape(following.id)}/index.html">{_per_lang(lesson_texts(following)["title"])}</a>')
    else:
        after_pass = f'<a href="{prefix}index.html">{_ui("lastAfterPass", "You passed this lesson, the last of the course. Back to all lessons")}</a>'
    serve = escape(SERVE_COMMAND)
    return _head(lesson_texts(lesson)["title"], prefix, assets, lesson.languages, head_extra) + f"""<body class="lesson-page">
<a class="skip-link" href="#editor" id="skip-to-editor">{_ui("skipToEditor", "Skip to the editor")}</a>
<header class="site-header">
<a class="site-name" href="{prefix}index.html">{_ui("siteName", SITE_TITLE)}</a>
<div class="view-switch" role="group" aria-label="Show the lesson or the code" data-ui-aria-label="viewSwitch">
<button type="button" data-view-choice="read" aria-pressed="true">{_ui("read", "Read")}</button>
<button type="button" data-view-choice="code" aria-pressed="false">{_ui("code", "Code")}</button>
</div>
{_switch(lesson.languages)}
</header>
<div class="file-protocol" id="file-protocol" role="alert" hidden><p>{_ui("fileProtocol", "This page must be served over http://, not opened as a file: browsers do not run Python workers from file:// pages. In the folder of the built site, run")}
<code>{serve}</code> {_ui("fileProtocolAfter", "and open http://127.0.0.1:8000/ instead.")}</p></div>
<main class="lesson-layout" data-view="read">
<article class="prose" id="prose">
{html}
{downloads}
{nav}
</article>
<section class="workbench" id="workbench" aria-labelledby="workbench-title" tabindex="0">
<div class="workbench-head">
<div class="workbench-bar">
<h2 id="workbench-title"><code>solution.py</code></h2>
<div class="toolbar">
<button type="button" id="run" class="primary" aria-keyshortcuts="Control+Enter Meta+Enter" aria-disabled="false">{_ui("run", "Run")}</button>
<button type="button" id="stop" disabled>{_ui("stop", "Stop")}</button>
<button type="button" id="reset">{_ui("reset", "Reset")}</button>
<button type="button" id="download" aria-label="Download your solution.py" data-ui-aria-label="downloadLabel">{_ui("download", "Download")}</button>
<button type="button" id="upload" aria-label="Upload a solution.py into the editor" data-ui-aria-label="uploadLabel">{_ui("upload", "Upload")}</button>
<input type="file" id="upload-file" accept=".py,text/x-python,text/plain" hidden>
</div>
</div>
<div class="run-status" id="run-status" role="status" aria-live="polite" aria-label="Run status" data-ui-aria-label="runStatus" data-ui="pythonLoading">Python is loading. You can read and type meanwhile.</div>
</div>
<div class="python-progress" id="python-progress">
<progress id="python-progress-bar" max="1" aria-label="Loading Python" data-ui-aria-label="loadingPythonLabel"></progress>
<span id="python-progress-text" data-ui="loadingPython">Loading Python…</span>
</div>
{_ui("sharedInterpreter", "This browser cannot run your code apart from the checks (it has no service worker here, as in some private windows): your verdict is right for ordinary code, but code written to fool the checks could fake its own. Your saved work stays safe.", "p", ' class="hint" id="shared-interpreter" hidden')}
<div class="notice" id="notice" hidden></div>
<div class="notice" id="save-failed" role="alert" hidden>{_ui("saveFailed", "Your latest changes could not be saved in this browser: its storage is full or turned off. They stay in the editor while this page is open; download solution.py to keep them.", "p")}
<button type="button" id="save-failed-download">{_ui("downloadSolution", "Download solution.py")}</button></div>
<div class="editor" id="editor"></div>
{_ui("editorHelp", "Write the functions, then press Run or Ctrl+Enter. Your code is saved in this browser as you type. In the editor Tab indents: press Esc, then Tab, to move on.", "p", ' class="hint" id="editor-help"')}
{_ui("stale", "Your code changed since this run; press Run to check it again.", "p", ' class="stale-note" id="stale-note" hidden')}
{_ui("gradedInOtherLanguage", "The checks' titles and messages below are in the language this run was graded in; press Run to get them in this one.", "p", ' class="stale-note" id="graded-lang-note" hidden')}
<p class="next-after-pass" id="next-after-pass" hidden>{after_pass}</p>
<div class="model-solution" id="model-solution" hidden>
<button type="button" id="show-solution">{_ui("showSolution", "Show the model solution")}</button>
<pre id="model-solution-code" tabindex="0" aria-label="Model solution" data-ui-aria-label="modelSolution" hidden></pre>
</div>
<div class="output" id="output" hidden>{_ui("printedOutput", "Printed output", "h3")}<pre id="output-text" tabindex="0"></pre></div>
<ul class="results" id="results" aria-label="Check results" data-ui-aria-label="checkResults"></ul>
</section>
</main>
<dialog id="reset-dialog" aria-labelledby="reset-dialog-title">
<form method="dialog">
{_ui("resetQuestion", "Replace your code with the lesson's starter? You can undo this afterwards.", "p", ' id="reset-dialog-title"')}
<div class="dialog-buttons"><button value="cancel" type="submit">{_ui("cancel", "Cancel")}</button>
<button value="replace" type="submit" class="primary">{_ui("replaceWithStarter", "Replace with starter")}</button></div>
</form>
</dialog>
<noscript><p class="noscript">This lesson runs Python in your browser and needs JavaScript.</p></noscript>
</body>
</html>
"""


def _json_for_html(data) -> str:
    """JSON that is safe inside a <script> element."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
