// The page's language (the course's `languages`): the header's switch shows one language's
// `::: lang` blocks, puts the page's own text into it, sets <html lang>, remembers the choice
// (per site, see storage.js) and tells the widgets and the grader.

import { applyUiText, uiText } from "./ui-text.js";
import { saveLanguage } from "./storage.js";

export class LanguageSwitch {
  constructor(doc) {
    this.doc = doc;
    this.root = doc.documentElement;
    this.buttons = [...doc.querySelectorAll("[data-lang-choice]")];
    this.listeners = [];
    for (const button of this.buttons) {
      button.addEventListener("click", () => this.set(button.dataset.langChoice));
    }
    this.reflect();
  }

  get current() {
    return this.root.dataset.pageLang;
  }

  onChange(callback) {
    this.listeners.push(callback);
  }

  set(lang) {
    if (lang === this.current) return;
    this.root.dataset.pageLang = lang;
    saveLanguage(lang);
    this.reflect();
    for (const callback of this.listeners) callback(lang);
  }

  reflect() {
    this.root.lang = this.current;
    applyUiText(this.doc, this.current);
    // The tab's title: the lesson's (the build writes it per language) and the site's name.
    const lessonTitles = JSON.parse(this.doc.querySelector("title")?.dataset.lessonTitles || "null");
    const site = uiText(this.current, "siteName");
    this.doc.title = lessonTitles ? `${lessonTitles[this.current] ?? lessonTitles.en} · ${site}` : site;
    for (const button of this.buttons) {
      button.setAttribute("aria-pressed", String(button.dataset.langChoice === this.current));
    }
  }
}
