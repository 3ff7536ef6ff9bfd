// The page's own text (buttons, statuses, dialogs, notes) in each language of the course. The
// build writes the English into the HTML with `data-ui="key"` (and `data-ui-<attribute>="key"`);
// `applyUiText` swaps in the page's language before the first paint and on every switch.

import { formatNumberIn, translator } from "./widgets/i18n.js";

/** Megabytes to one decimal, in `lang`'s way: "12.3" in English, "12,3" in Polish. */
const mb = (lang, value) => formatNumberIn(lang, value, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

const en = {
  siteName: "Tensor parallelism, hands on",
  skipToEditor: "Skip to the editor",
  language: "Language",
  run: "Run",
  stop: "Stop",
  reset: "Reset",
  download: "Download",
  upload: "Upload",
  uploadLabel: "Upload a solution.py into the editor",
  downloadLabel: "Download your solution.py",
  read: "Read",
  code: "Code",
  viewSwitch: "Show the lesson or the code",
  editorHelp:
    "Write the functions, then press Run or Ctrl+Enter. Your code is saved in this browser as you type. In the editor Tab indents: press Esc, then Tab, to move on.",
  loadingPython: "Loading Python…",
  loadingPythonLabel: "Loading Python",
  pythonLoading: "Python is loading. You can read and type meanwhile.",
  pythonReady: "Python is ready. Press Run to check your solution.",
  pythonReadyShort: "Python is ready.",
  runningChecks: "Running the checks…",
  waitingForPython: "Python is still loading; your code runs as soon as it is ready.",
  stopping: "Stopping…",
  stopped: "Stopped. Your code is unchanged; press Run when you are ready.",
  pythonFailed: "Python failed while grading ({message}). It has been restarted; press Run to try again.",
  "Downloading Python": "Downloading Python",
  "Preparing the checks": "Preparing the checks",
  "Restarting Python": "Restarting Python",
  megabytes: ({ stage, loaded, total }) => `${stage}: ${mb("en", loaded)} of ${mb("en", total)} MB`,
  allPassed: "All {total} checks passed. Well done!",
  onePassed: "The check passed.",
  somePassed: "{passed} of {total} checks passed{extra}. See the messages below.",
  timedOutCount: " ({count} timed out)",
  runStatus: "Run status",
  checkResults: "Check results",
  companionFiles: "Companion files",
  printedOutput: "Printed output",
  outputCut: "… (output cut here)",
  passed: "passed",
  failed: "failed",
  error: "error",
  timeout: "timed out",
  running: "running",
  repeats: { one: "{count} more check below failed with this same message.", other: "{count} more checks below failed with this same message." },
  sameAs: "Same message as “{title}” above.",
  showHint: { one: "Show a hint ({count} step)", other: "Show a hint ({count} steps)" },
  nextHint: "Next hint (step {next} of {total})",
  hintStep: "Hint {step} of {total}",
  stale: "Your code changed since this run; press Run to check it again.",
  gradedInOtherLanguage: "The checks' titles and messages below are in the language this run was graded in; press Run to get them in this one.",
  resetQuestion: "Replace your code with the lesson's starter? You can undo this afterwards.",
  cancel: "Cancel",
  replaceWithStarter: "Replace with starter",
  replaced: "Your code was replaced with the starter.",
  replacedNew: "Your code was replaced with the new starter.",
  undo: "Undo",
  starterChanged: "This lesson's starter code changed since you last worked on it. Your code is kept below.",
  useNewStarter: "Use the new starter",
  keepMyCode: "Keep my code",
  uploaded: "{name} was loaded into the editor.",
  uploadFailed: "{name} could not be read as text.",
  saveFailed:
    "Your latest changes could not be saved in this browser: its storage is full or turned off. They stay in the editor while this page is open; download solution.py to keep them.",
  downloadSolution: "Download solution.py",
  tryTimeout: "Your code did not finish within {seconds} s.",
  pythonStopped: "Python was stopped.",
  previous: "Previous:",
  next: "Next:",
  nextAfterPass: "You passed this lesson. Next lesson:",
  lastAfterPass: "You passed this lesson, the last of the course. Back to all lessons",
  courseNav: "Lessons",
  notStarted: "not started",
  inProgress: "in progress",
  passedLesson: "passed",
  continueWith: "Continue: {title}",
  startWith: "Start: {title}",
  allDone: "You passed every lesson. Well done!",
  lessons: "Lessons",
  intro:
    "Split a transformer's layers across GPUs the way Megatron-LM does, and check your own code in the browser: Python runs on this page, nothing is installed. The number of GPUs one layer is split over is the TP (tensor-parallel) degree, n.",
  fileProtocol:
    "This page must be served over http://, not opened as a file: browsers do not run Python workers from file:// pages. In the folder of the built site, run",
  fileProtocolAfter: "and open http://127.0.0.1:8000/ instead.",
  sharedInterpreter:
    "This browser cannot run your code apart from the checks (it has no service worker here, as in some private windows): your verdict is right for ordinary code, but code written to fool the checks could fake its own. Your saved work stays safe.",
  noscript: "This lesson runs Python in your browser and needs JavaScript.",
  showSolution: "Show the model solution",
  modelSolution: "Model solution",
  solutionUnavailable: "The model solution could not be loaded ({message}).",
  givenCode: "Given code",
};

const pl = {
  siteName: "Równoległość tensorowa w praktyce",
  skipToEditor: "Przejdź do edytora",
  language: "Język",
  run: "Uruchom",
  stop: "Zatrzymaj",
  reset: "Od nowa",
  download: "Pobierz",
  upload: "Wczytaj",
  uploadLabel: "Wczytaj plik solution.py do edytora",
  downloadLabel: "Pobierz swój solution.py",
  read: "Lekcja",
  code: "Kod",
  viewSwitch: "Pokaż lekcję albo kod",
  editorHelp:
    "Napisz funkcje, potem naciśnij Uruchom albo Ctrl+Enter. Twój kod zapisuje się w tej przeglądarce na bieżąco. W edytorze Tab wcina wiersz: naciśnij Esc, a potem Tab, by przejść dalej.",
  loadingPython: "Wczytywanie Pythona…",
  loadingPythonLabel: "Wczytywanie Pythona",
  pythonLoading: "Python się wczytuje. W tym czasie możesz czytać i pisać.",
  pythonReady: "Python jest gotowy. Naciśnij Uruchom, by sprawdzić rozwiązanie.",
  pythonReadyShort: "Python jest gotowy.",
  runningChecks: "Trwa sprawdzanie…",
  waitingForPython: "Python jeszcze się wczytuje; twój kod uruchomi się, gdy tylko Python będzie gotowy.",
  stopping: "Zatrzymywanie…",
  stopped: "Zatrzymano. Twój kod się nie zmienił; naciśnij Uruchom, kiedy zechcesz.",
  pythonFailed: "Python uległ awarii podczas sprawdzania ({message}). Uruchomiono go ponownie; naciśnij Uruchom, by spróbować znowu.",
  "Downloading Python": "Pobieranie Pythona",
  "Preparing the checks": "Przygotowywanie sprawdzeń",
  "Restarting Python": "Ponowne uruchamianie Pythona",
  megabytes: ({ stage, loaded, total }) => `${stage}: ${mb("pl", loaded)} z ${mb("pl", total)} MB`,
  allPassed: "Wszystkie sprawdzenia ({total}) zaliczone. Brawo!",
  onePassed: "Sprawdzenie zaliczone.",
  somePassed: "Zaliczone sprawdzenia: {passed} z {total}{extra}. Zobacz komunikaty poniżej.",
  timedOutCount: " (przekroczony czas: {count})",
  runStatus: "Stan sprawdzania",
  checkResults: "Wyniki sprawdzeń",
  companionFiles: "Pliki towarzyszące",
  printedOutput: "Wypisane dane",
  outputCut: "… (tu ucięto wyjście)",
  passed: "zaliczone",
  failed: "niezaliczone",
  error: "błąd",
  timeout: "przekroczony czas",
  running: "trwa",
  repeats: {
    one: "Ten sam komunikat ma jeszcze {count} sprawdzenie poniżej.",
    few: "Ten sam komunikat mają jeszcze {count} sprawdzenia poniżej.",
    many: "Ten sam komunikat ma jeszcze {count} sprawdzeń poniżej.",
  },
  sameAs: "Ten sam komunikat co w „{title}” wyżej.",
  showHint: { one: "Pokaż podpowiedź ({count} krok)", few: "Pokaż podpowiedź ({count} kroki)", many: "Pokaż podpowiedź ({count} kroków)" },
  nextHint: "Następna podpowiedź (krok {next} z {total})",
  hintStep: "Podpowiedź {step} z {total}",
  stale: "Twój kod zmienił się od tego uruchomienia; naciśnij Uruchom, by sprawdzić go ponownie.",
  gradedInOtherLanguage: "Tytuły i komunikaty sprawdzeń poniżej są w języku, w którym oceniono to uruchomienie; naciśnij Uruchom, by dostać je w tym języku.",
  resetQuestion: "Zastąpić twój kod szablonem lekcji? Potem możesz to cofnąć.",
  cancel: "Anuluj",
  replaceWithStarter: "Zastąp szablonem",
  replaced: "Twój kod zastąpiono szablonem.",
  replacedNew: "Twój kod zastąpiono nowym szablonem.",
  undo: "Cofnij",
  starterChanged: "Szablon tej lekcji zmienił się od twojej ostatniej wizyty. Twój kod jest zachowany poniżej.",
  useNewStarter: "Użyj nowego szablonu",
  keepMyCode: "Zachowaj mój kod",
  uploaded: "Wczytano {name} do edytora.",
  uploadFailed: "Nie udało się odczytać {name} jako tekstu.",
  saveFailed:
    "Nie udało się zapisać ostatnich zmian w tej przeglądarce: jej pamięć jest pełna albo wyłączona. Zostają w edytorze, dopóki ta strona jest otwarta; pobierz solution.py, by je zachować.",
  downloadSolution: "Pobierz solution.py",
  tryTimeout: "Twój kod nie skończył w ciągu {seconds} s.",
  pythonStopped: "Python został zatrzymany.",
  previous: "Poprzednia:",
  next: "Następna:",
  nextAfterPass: "Lekcja zaliczona. Następna lekcja:",
  lastAfterPass: "Lekcja zaliczona, ostatnia w kursie. Wróć do listy lekcji",
  courseNav: "Lekcje",
  notStarted: "nierozpoczęta",
  inProgress: "w trakcie",
  passedLesson: "zaliczona",
  continueWith: "Kontynuuj: {title}",
  startWith: "Zacznij: {title}",
  allDone: "Wszystkie lekcje zaliczone. Brawo!",
  lessons: "Lekcje",
  intro:
    "Podziel warstwy transformera między GPU tak jak Megatron-LM i sprawdź własny kod w przeglądarce: Python działa na tej stronie, niczego nie trzeba instalować. Liczba GPU, na które dzielona jest jedna warstwa, to stopień TP (równoległości tensorowej), n.",
  fileProtocol:
    "Tę stronę trzeba otworzyć przez http://, a nie jako plik: przeglądarki nie uruchamiają wątków Pythona ze stron file://. W folderze zbudowanej strony uruchom",
  fileProtocolAfter: "i otwórz zamiast tego http://127.0.0.1:8000/.",
  sharedInterpreter:
    "Ta przeglądarka nie może uruchomić twojego kodu osobno od testów (nie ma tu service workera, jak w niektórych oknach prywatnych): zwykły kod dostaje prawdziwy wynik, ale kod napisany po to, by oszukać testy, mógłby sfałszować własny. Twoja zapisana praca jest bezpieczna.",
  noscript: "Ta lekcja uruchamia Pythona w przeglądarce i potrzebuje JavaScriptu.",
  showSolution: "Pokaż rozwiązanie wzorcowe",
  modelSolution: "Rozwiązanie wzorcowe",
  solutionUnavailable: "Nie udało się wczytać rozwiązania wzorcowego ({message}).",
  givenCode: "Gotowy kod",
};

export const uiMessages = { en, pl };
const t = translator(uiMessages);

/** The page's text for `key` in `lang` (English where a language lacks it). */
export function uiText(lang, key, vars) {
  return t(lang, key, vars);
}

/** Puts every `data-ui` text and `data-ui-<attribute>` attribute of `root` into `lang`. */
export function applyUiText(root, lang) {
  for (const element of root.querySelectorAll("[data-ui]")) {
    element.textContent = t(lang, element.dataset.ui, JSON.parse(element.dataset.uiVars || "{}"));
  }
  for (const attribute of ["aria-label", "title"]) {
    const data = `data-ui-${attribute}`;
    for (const element of root.querySelectorAll(`[${data}]`)) {
      element.setAttribute(attribute, t(lang, element.getAttribute(data)));
    }
  }
}
