// The page's prose language (lesson.toml's `languages`): the header's switch shows one
// language's `::: lang` blocks, remembers the choice, and tells the widgets.

const STORAGE_KEY = "tp-course:lang";  // also read by the inline script in the page's <head>

export class LanguageSwitch {
  constructor(doc) {
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
    this.root.lang = lang;
    try {
      localStorage.setItem(STORAGE_KEY, lang);
    } catch {
      // Storage blocked: the choice lasts for this visit only.
    }
    this.reflect();
    for (const callback of this.listeners) callback(lang);
  }

  reflect() {
    for (const button of this.buttons) {
      button.setAttribute("aria-pressed", String(button.dataset.langChoice === this.current));
    }
  }
}
