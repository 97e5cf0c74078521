"""The MkDocs plugin: one page per trace in ``site/traces/``, a lecture list on the home page.

On ``on_config`` every trace is loaded and validated. A trace that cannot be read, or whose page
cannot be rendered, gets an error card on its own page (and a line in the build log) instead of
failing the build: one broken lecture never takes the other pages down. ``on_files`` adds, in memory, the
generated Markdown page ``lectures/NAME.md`` (URL ``lectures/NAME/``), a highlighted source page
``lectures/NAME/source.html``, the site's own assets (``site/assets/*`` -> ``assets/chalktrace/*``)
and every local image a lecture shows (``PATH`` -> ``assets/PATH``). ``on_page_content`` puts the
HTML slots back into the converted Markdown and wraps it in ``lecture.html.j2``; ``on_post_build``
writes the step viewer's ``data.js`` beside each page and the ``plot()`` charts' SVG files, and each
lecture's speaker notes to its notes file outside the site (``paths.notes_path``: never published);
``on_serve`` makes ``mkdocs serve`` watch the traces, templates and assets; under ``chalktrace serve``
a lecture saved with a syntax error is rendered from its error-only draft (``paths.DRAFT_TRACES_ENV``). A lecture's kept GPU run
(``site/traces/gpu/NAME.json``) gets its own page at ``lectures/NAME/gpu/``, out of the nav, and the
two pages link to each other (``tracer.site.pages.kept_gpu_run``). Glue only: this module must not
decide how values look (``tracer.site.cards.render``) or what the document holds (``tracer.site.model.page_model``).
"""

from __future__ import annotations

import copy
import html
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.utils.templates import TemplateContext

from tracer.contract import collector, paths
from tracer.contract.course_layout import CourseLayout, quiet_layout_of
from tracer.site.cards.render import HtmlRenderer
from tracer.site.cards.interface_strings import language_of
from tracer.site.cards.interface_strings import load as load_strings
from tracer.site.cards.templates import template_env, template_macros
from tracer.site.pages import card_workers
from tracer.site.pages.kept_gpu_run import gpu_run_note, publishable
from tracer.site.render_cache import Entry, RenderCache, renderer_version, settings_text, trace_digest
from tracer.site.markdown_ext.sanitize import csp_meta
from tracer.site.pages.read_page import build_read_page, compact_whitespace, fill_slots, root_for
from tracer.site.model.animate import expand_animations
from tracer.contract.lecture_files import lecture_name_problem, url_safe
from tracer.contract.trace_format import Trace, TraceError
from tracer.contract.trace_reading import load_trace
from tracer.contract.helper_files import SettingsError
from tracer.contract.publish_policy import StudentWarning, accepted_settings, student_warnings
from tracer.site.pages.speaker_notes import notes_text
from tracer.site.pages.viewer_data import viewer_data_text
from tracer.site.built_files import link_retrace_status, published_images, write_notes, write_rendered
from tracer.site.pages.home import lecture_listing, listed_lecture
from tracer.site.pages.lecture_page import lecture_page_parts
from tracer.site.plugin_lecture import LecturePage
from tracer.site.viewer_assets import (
    LIVERELOAD_ASSET,
    STYLESHEETS,
    VIEWER_BUNDLE,
    serve_reload_script,
    viewer_bundle,
    viewer_scripts,
)

log = logging.getLogger("mkdocs.plugins.chalktrace")
HOME_MARKER = "<!-- chalktrace:lectures -->"
FIRST_H1 = re.compile(r"<h1\b.*?</h1>", re.S)


class ChalktraceConfig(Config):
    # Paths are relative to mkdocs.yml. Templates and assets default to the ones shipped with the
    # package; a course may point either at its own copy.
    traces_dir = c.Optional(c.Dir())  # default: the course's (site/traces/, an edtrace course's var/traces/)
    templates_dir = c.Optional(c.Dir(exists=True))
    assets_dir = c.Optional(c.Dir(exists=True))
    project_root = c.Dir(exists=True, default=".")  # trace paths (lecture files, images) are relative to it
    step_mode = c.Type(bool, default=True)  # write data.js for the step viewer
    # A lecture page that could not be built fails the build (it always shows an error card); also
    # when the environment names paths.FAIL_ON_BROKEN_PAGES_ENV, as `chalktrace build` does.
    fail_on_broken_pages = c.Type(bool, default=False)


class ChalktracePlugin(BasePlugin[ChalktraceConfig]):
    serving = False  # `mkdocs serve` (and `chalktrace serve`): the live-reload script is part of the site
    cache: RenderCache  # rendered lecture pages by content; made on first config, kept across serve's rebuilds
    layout: CourseLayout  # where the course keeps its traces and what chalktrace builds (made on config)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup keeps this plugin object across serve's rebuilds.
        self.serving = command == "serve"

    def on_config(self, config: Any) -> Any:
        try:
            card_workers.forced_count()  # a bad value fails the build here, not later its step mode alone
        except ValueError as exc:
            raise PluginError(str(exc)) from None
        self.project_root = Path(self.config.project_root).resolve()
        self.layout = layout = quiet_layout_of(self.project_root)
        self.traces_dir = Path(self.config.traces_dir) if self.config.traces_dir else layout.traces_dir
        self.assets_dir = Path(self.config.assets_dir or paths.ASSETS_DIR)
        # The interface's words in the course's language, as Material picks its own (theme.language).
        language, why_english = language_of(config["theme"]["language"])
        if why_english:
            log.warning("chalktrace: %s", why_english)
        self.strings = load_strings(language)
        self.env = template_env(Path(self.config.templates_dir or paths.TEMPLATES_DIR), self.strings)
        # The site's own CSS/JS is linked from every page without the course listing it.
        for attr, names in (("extra_css", STYLESHEETS), ("extra_javascript", (VIEWER_BUNDLE,))):
            listed = [str(entry) for entry in config[attr]]
            for name in names:
                if paths.ASSETS_URL + name not in listed:
                    config[attr].append(paths.ASSETS_URL + name)
        # LecturePage prose is sanitized after Markdown, on every page (tracer.site.markdown_ext.sanitize).
        if "tracer.site.markdown_ext.sanitize" not in config["markdown_extensions"]:
            config["markdown_extensions"].append("tracer.site.markdown_ext.sanitize")
        # Lists number as written (`0.` starts at 0) in read mode as in step mode, whose fragments
        # are rendered with sane_lists too (tracer.site.markdown_ext.mathml.MARKDOWN_EXTENSIONS).
        if "sane_lists" not in config["markdown_extensions"]:
            config["markdown_extensions"].append("sane_lists")
        version = renderer_version(Path(self.config.templates_dir or paths.TEMPLATES_DIR), self.assets_dir)
        if getattr(self, "cache", None) is None or self.cache.version != version:
            self.cache = RenderCache(layout.work_dir, version)  # kept across serve's rebuilds
        # the configuration as MkDocs resolved it (INHERIT merged, !ENV read), not the file's bytes
        self.settings = f"{config['site_name']}\0step_mode={self.config.step_mode}\0{settings_text(config)}"
        # and what decides the page's warning boxes besides the trace: the course's accept_warnings
        # (pyproject.toml; a bad one shows every warning) and a lenient layout's rules
        try:
            accepted: object = accepted_settings(self.project_root)
        except SettingsError:
            accepted = None
        self.settings += f"\0accept_warnings={accepted!r}\0lenient={layout.lenient}"
        self.lectures: dict[str, LecturePage] = {}
        # lecture name -> the trace_digest of the kept GPU run its cache key was made with (None: none)
        self._keyed_with: dict[str, bytes | None] = {}
        self._no_page: list[str] = []  # traces that got no page at all (not even an error card)
        self._nav_order: dict[str, int] = {}  # lecture name -> its place in the nav (on_nav)
        for path in sorted(self._trace_files(), key=lambda path: path.name):
            self._add_lecture(path)
        for path in sorted((self.traces_dir / paths.GPU_RUNS_SUBDIR).glob("*.json")):
            self._add_gpu_run(path)
        return config

    def _drafts_dir(self) -> Path | None:
        """Under `chalktrace serve`: where it puts error-only drafts of lectures saved with a syntax error."""
        named = os.environ.get(paths.DRAFT_TRACES_ENV)
        return Path(named) if self.serving and named else None

    def _trace_files(self) -> list[Path]:
        """The traces to publish: each lecture's, or its draft while `chalktrace serve` has one."""
        traces = {path.stem: path for path in self.traces_dir.glob("*.json")}
        drafts = self._drafts_dir()
        if drafts is not None:
            traces.update({path.stem: path for path in drafts.glob("*.json")})
        return list(traces.values())

    def _add_gpu_run(self, path: Path) -> None:
        """Publish a kept GPU run beside its lecture's CPU trace, or say (in the log) why not."""
        lecture = self.lectures.get(path.stem)
        try:
            if lecture is None or lecture.failure is not None:
                raise TraceError(f"no page for lecture {path.stem!r} to keep it beside")
            content = path.read_bytes()
            slug = paths.gpu_run_slug(lecture.name)
            # the lecture's key names its trace (and this run): this page's names it in turn
            own = lecture.cache_key
            key = self.cache.key(slug, content, self.settings, beside=own.encode()) if own is not None else None
            cached = self.cache.get(key) if key is not None else None
            if self._keyed_with.get(lecture.name) != trace_digest(content):
                # the lecture's entry was looked up without this run (its trace file is named
                # otherwise): its page is rendered afresh, and not kept under that key
                lecture.cache_key, lecture.cached = None, None
            # an entry exists only for a trace that validated when it was rendered: its bytes are the same
            trace = self._load(path, validate=cached is None)
            why = publishable(lecture.trace, trace)
            if why:
                raise TraceError(why)
            renderer = HtmlRenderer(trace, self.env)
        except Exception as exc:  # noqa: BLE001 (a kept run never takes its lecture's page down)
            log.info(
                "chalktrace: %s: GPU run not published (%s)",
                Path(paths.shown_path(path, self.project_root)),
                str(exc).replace(str(self.project_root) + "/", ""),
            )
            return
        self.lectures[slug] = LecturePage(
            slug,
            trace,
            Path(paths.shown_path(path, self.project_root)),
            renderer,
            gpu_run_of=lecture.name,
            cache_key=key,
            cached=cached,
        )
        lecture.gpu_run = slug

    def _load(self, path: Path, *, validate: bool) -> Trace:
        """A trace read for this build, its step numbers counting @animate's parts. Kept to the end of
        the build, it is set aside from the collector's passes until then (``on_post_build`` and
        ``on_build_error`` bring it back): each pass would walk its millions of objects again. Not
        while serving: setting aside takes every object alive, the server threads' open requests
        too, and their cycles would then wait for a full pass long after the build."""
        trace = expand_animations(load_trace(path, validate=validate))
        if not self.serving:
            collector.set_aside()
        return trace

    def _add_lecture(self, path: Path) -> None:
        fallback = url_safe(path.stem)
        key, cached = None, None
        try:
            content = path.read_bytes()
            # a lecture's page links to its kept GPU run, named by what it ran on: that trace is in the key
            beside = self._kept_run_digest(path.stem)
            key = self.cache.key(fallback, content, self.settings, beside=beside)
            cached = self.cache.get(key)
            # An entry exists only for a trace that validated when it was rendered: its bytes are the same.
            trace = self._load(path, validate=cached is None)
        except OSError as exc:
            self._broken(fallback, path, f"{Path(paths.shown_path(path, self.project_root))}: cannot read ({exc.strerror})")
            return
        except TraceError as exc:
            # Name the trace as the course sees it, not by this machine's absolute path.
            self._broken(fallback, path, str(exc).replace(str(self.project_root) + "/", ""))
            return
        name = trace["lecture"]["name"]
        problem = lecture_name_problem(name)
        if problem:
            self._broken(fallback, path, f"{Path(paths.shown_path(path, self.project_root))}: lecture {problem}")
            return
        if name in self.lectures:
            self._broken(
                fallback if fallback != name else name + "-duplicate",
                path,
                f"{Path(paths.shown_path(path, self.project_root))}: lecture {name!r} is also traced in {self.lectures[name].trace_path}",
            )
            return
        try:
            renderer = HtmlRenderer(trace, self.env)
        except Exception as exc:  # noqa: BLE001 (any rendering bug stays on this lecture's page)
            self._broken(
                name, path, f"{Path(paths.shown_path(path, self.project_root))}: cannot render ({type(exc).__name__}: {exc})"
            )
            return
        self.lectures[name] = LecturePage(
            name, trace, Path(paths.shown_path(path, self.project_root)), renderer, cache_key=key, cached=cached
        )
        self._keyed_with[name] = beside

    def _kept_run_digest(self, stem: str) -> bytes | None:
        """The ``trace_digest`` of the kept GPU run beside lecture trace ``stem``, None when there is none
        to read (its page then shows none)."""
        try:
            return trace_digest((self.traces_dir / paths.GPU_RUNS_SUBDIR / f"{stem}.json").read_bytes())
        except OSError:
            return None

    def _broken(self, name: str, path: Path, why: str) -> None:
        if name in self.lectures:
            log.info("chalktrace: %s (no page: the name %s is taken)", why, name)
            self._no_page.append(f"{why} (no page: the name {name} is taken)")
            return
        log.info("chalktrace: %s; its page shows an error card", why)
        self.lectures[name] = LecturePage(name, {}, Path(paths.shown_path(path, self.project_root)), None, failure=why)  # type: ignore[typeddict-item]

    def _fail(self, lecture: LecturePage, what: str, exc: BaseException) -> None:
        lecture.failure = f"{lecture.trace_path}: {what} ({type(exc).__name__}: {exc})"
        lecture.page = None
        log.info("chalktrace: %s; its page shows an error card", lecture.failure)

    # --- files -------------------------------------------------------------------------------

    def on_files(self, files: Files, config: Any) -> Files:
        self._source_pages: dict[str, str] = {}
        self._contents: dict[str, tuple[str, Any]] = {}  # this build's rendered lecture contents and tocs
        self._search_entries: dict[str, list[dict[str, Any]]] = {}
        self._reuse_search_entries(config)
        for lecture in self.lectures.values():
            extra: list[File] = []
            if lecture.failure is None:
                try:
                    assert lecture.renderer is not None  # every lecture without a failure has one
                    cached = lecture.cached
                    if cached is not None:
                        lecture.page, source_page = cached.read_page, cached.source_page or ""
                    else:
                        lecture.page = build_read_page(lecture.trace, lecture.renderer, self.env)
                        source_page = self._source_page(lecture, config)
                        self._source_pages[lecture.name] = source_page
                    extra.append(File.generated(config, paths.source_url(lecture.name), content=source_page))
                    for image_path in published_images(lecture.trace, self.project_root):
                        if files.get_file_from_path(f"assets/{image_path}") is None:
                            extra.append(
                                File.generated(config, f"assets/{image_path}", abs_src_path=str(self.project_root / image_path))
                            )
                except Exception as exc:  # noqa: BLE001 (any rendering bug stays on this lecture's page)
                    self._fail(lecture, "cannot render page", exc)
                    extra = []
            # Titles are text: escaped here, because MkDocs and the theme put page titles into
            # <title>, the nav and the <h1> as HTML.
            front = "---\ntitle: " + json.dumps(html.escape(lecture.title)) + "\n---\n\n"
            body = lecture.page.markdown if lecture.page is not None else ""
            # A kept GPU run is reached from its lecture's page, not listed as a lecture of its own.
            inclusion = InclusionLevel.NOT_IN_NAV if lecture.gpu_run_of else InclusionLevel.UNDEFINED
            files.append(File.generated(config, lecture.src_uri, content=front + body, inclusion=inclusion))
            for file in extra:
                files.append(file)
        if self.assets_dir.is_dir():
            bundled = viewer_scripts(self.assets_dir)
            for asset in sorted(p for p in self.assets_dir.rglob("*") if p.is_file()):
                if asset.name == LIVERELOAD_ASSET and not self.serving:
                    continue  # a published site never polls a development server
                if asset.parent == self.assets_dir and asset.name in bundled:
                    continue  # published inside VIEWER_BUNDLE
                uri = paths.ASSETS_URL + asset.relative_to(self.assets_dir).as_posix()
                files.append(File.generated(config, uri, abs_src_path=str(asset)))
            files.append(
                File.generated(config, paths.ASSETS_URL + VIEWER_BUNDLE, content=viewer_bundle(self.assets_dir, self.strings))
            )
        return files

    def _source_page(self, lecture: LecturePage, config: Any) -> str:
        main = lecture.trace["lecture"]["path"]
        assert lecture.renderer is not None  # called only for a lecture without a failure
        lines = [Markup(html) for html in lecture.renderer.code_lines(main, directives="keep")]  # as traced
        return self.env.get_template("source.html.j2").render(
            path=main,
            title=lecture.title,
            site_name=config.site_name,
            root=root_for(paths.source_url(lecture.name).rsplit("/", 1)[0] + "/"),
            lines=lines,
        )

    # --- pages -------------------------------------------------------------------------------

    def _lecture_of(self, page: Any) -> LecturePage | None:
        if page.file.src_uri.startswith("lectures/") and page.file.src_uri.endswith(".md"):
            return self.lectures.get(page.file.src_uri[len("lectures/") : -3])
        return None

    def _cached_content(self, page: Any) -> Entry | None:
        """The cache entry of a lecture page whose whole content an earlier build rendered from this
        trace (and from the kept GPU run beside it, or the lecture it is kept beside: both are in the key)."""
        lecture = self._lecture_of(page)
        if lecture is None or lecture.failure is not None:
            return None
        cached = lecture.cached
        return cached if cached is not None and cached.content is not None else None

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        # The page's content is cached: nothing for Markdown to convert (on_page_content puts it back).
        return "" if self._cached_content(page) is not None else markdown

    def on_page_content(self, html: str, page: Any, config: Any, files: Files) -> str:
        root = root_for(page.url)
        if page.file.src_uri == "index.md":
            if "<h1" not in html and "title" not in page.meta:
                # A course's title lives once, as site_name: it heads the home page (Material's <title>
                # for the home page reads it too). The page keeps MkDocs' title, "Home", for its entry
                # in the nav, which Material heads with site_name already (it would say it twice).
                html = f"<h1>{escape(config['site_name'])}</h1>\n{html}"
            listing = self._home_listing(root)
            return html.replace(HOME_MARKER, listing) if HOME_MARKER in html else html + listing
        cached = self._cached_content(page)
        if cached is not None:
            page.toc = cached.toc
            return cached.content or ""
        lecture = self._lecture_of(page)
        if lecture is None:
            return html
        if lecture.page is not None:
            try:
                content = self._lecture_content(lecture, html, root)
                self._contents[lecture.name] = (content, page.toc)
                return content
            except Exception as exc:  # noqa: BLE001 (any rendering bug stays on this lecture's page)
                self._fail(lecture, "cannot render page", exc)
        return self.env.get_template("broken_page.html.j2").render(
            title=lecture.title, message=lecture.failure or "unknown error", trace_path=str(lecture.trace_path)
        )

    def _lecture_content(self, lecture: LecturePage, html: str, root: str) -> str:
        assert lecture.page is not None and lecture.renderer is not None  # a page was built: no failure
        content = fill_slots(html, lecture.page, root)
        heading = ""
        # The lecture's title goes on top even when code (helpers defined before main) precedes it.
        match = FIRST_H1.search(content)
        if match:
            heading, content = match.group(0), content[: match.start()] + content[match.end() :]
        trace = lecture.trace
        return self.env.get_template("lecture.html.j2").render(
            heading=Markup(heading),
            content=Markup(content),
            lecture_name=lecture.name,
            root=root,
            **lecture_page_parts(trace, lecture.renderer, self.env, root + paths.source_url(lecture.name)),
            warnings=self._student_warnings(trace),
            gpu_run=self._gpu_run_note(lecture, root),
        )

    def _student_warnings(self, trace: Trace) -> list[StudentWarning]:
        """The page's warning boxes; those the author accepted show as the author's notes."""
        try:
            return student_warnings(trace, self.project_root)
        except SettingsError:  # check and build name the bad setting; the page shows every warning
            return student_warnings(trace)

    def _gpu_run_note(self, lecture: LecturePage, root: str) -> dict[str, Any] | None:
        if lecture.gpu_run_of is not None:
            current = self.lectures[lecture.gpu_run_of]
            return gpu_run_note(current.trace, lecture.trace, url=root + paths.lecture_url(current.name), on_gpu_run_page=True)
        if lecture.gpu_run is not None:
            return gpu_run_note(
                lecture.trace,
                self.lectures[lecture.gpu_run].trace,
                url=root + paths.lecture_url(lecture.gpu_run),
                on_gpu_run_page=False,
            )
        return None

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        if self._lecture_of(page) is None:
            return output
        early = str(template_macros(self.env, "page_parts.html.j2").early_step_mode())
        # lecture pages are large: the theme's indentation alone is kilobytes (the lecture page's size budget, bench/README.md)
        output = compact_whitespace(output.replace("<head>", "<head>\n" + early, 1))
        # first in <head>, before any script it governs (tracer.site.markdown_ext.sanitize)
        return output.replace("<head>", "<head>\n" + csp_meta(output), 1)

    def on_page_context(self, context: TemplateContext, page: Any, config: Any, nav: Any) -> TemplateContext:
        lecture = self._lecture_of(page)
        if lecture is not None and lecture.failure is None:
            # the edit action opens the lecture's traced source (there is no repository to edit in)
            page.edit_url = root_for(page.url) + paths.source_url(lecture.name)
        return context

    def on_nav(self, nav: Any, config: Any, files: Files) -> Any:
        # The home page lists lectures in the nav's order (mkdocs.yml `nav:`; without one, MkDocs
        # orders them by file name); lectures the nav leaves out follow, by file name.
        self._nav_order.clear()
        for page in nav.pages:
            lecture = self._lecture_of(page)
            if lecture is not None and lecture.name not in self._nav_order:
                self._nav_order[lecture.name] = len(self._nav_order)
        return nav

    def _home_listing(self, root: str) -> str:
        lectures = []
        order = self._nav_order
        listed = sorted(self.lectures.values(), key=lambda lecture: (order.get(lecture.name, len(order)), lecture.name))
        for lecture in listed:
            if lecture.gpu_run_of is not None:
                continue  # listed with its lecture
            entry = listed_lecture(lecture.title, lecture.name, root, broken=lecture.failure is not None)
            if lecture.failure is None:
                try:
                    gpu = self.lectures[lecture.gpu_run] if lecture.gpu_run is not None else None
                    entry.update(lecture_listing(lecture.trace, lecture.name, root, (gpu.name, gpu.trace) if gpu else None))
                except Exception as exc:  # noqa: BLE001
                    self._fail(lecture, "cannot list", exc)
                    entry["broken"] = True
            lectures.append(entry)
        return self.env.get_template("home.html.j2").render(lectures=lectures)

    # --- serving -----------------------------------------------------------------------------

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        # Plain `mkdocs serve` rebuilds when a trace is (re-)written or a template or asset is edited.
        drafts = self._drafts_dir()
        for directory in (self.traces_dir, Path(self.config.templates_dir or paths.TEMPLATES_DIR), self.assets_dir, drafts):
            if directory is not None and directory.is_dir():
                server.watch(str(directory))
        if not serve_reload_script(server):  # served pages link the reload script as a file (their CSP)
            log.warning(
                "chalktrace: this MkDocs serves pages without the reload hook chalktrace expects; "
                "lecture pages will not reload on their own"
            )
        return server

    # --- after the build ---------------------------------------------------------------------

    def on_post_build(self, config: Any) -> None:
        site_dir = Path(config.site_dir)
        for lecture in self.lectures.values():
            if lecture.failure is not None or lecture.renderer is None:
                continue
            try:
                rendered = lecture.cached or self._render_step_data(lecture)
                write_rendered(site_dir, lecture.name, rendered)
                self._write_notes(lecture, site_dir)
            except Exception as exc:  # noqa: BLE001 (the read page stands; step mode says it has no data)
                log.info(
                    "chalktrace: %s: cannot write step data (%s: %s); step mode is unavailable on its page",
                    lecture.trace_path,
                    type(exc).__name__,
                    exc,
                )
                continue
            if lecture.cached is None and lecture.cache_key is not None and lecture.failure is None:
                self.cache.put(lecture.cache_key, rendered)
        self.cache.finish()
        if self.serving:
            link_retrace_status(site_dir)
        broken = [lecture.failure for lecture in self.lectures.values() if lecture.failure is not None] + self._no_page
        # This build's traces, renderers and pages are done with: let go of them now, not at the next
        # build (serve) or at exit, whose collector passes over them cost 2 s (100,005-step lecture).
        self.lectures, self._contents, self._source_pages, self._search_entries = {}, {}, {}, {}
        collector.bring_back()  # what the build set aside; the traces just let go of are freed already
        if broken and (self.config.fail_on_broken_pages or os.environ.get(paths.FAIL_ON_BROKEN_PAGES_ENV)):
            raise PluginError(
                f"{len(broken)} lecture page(s) could not be built (each shows an error card): " + "; ".join(broken)
            )

    def on_build_error(self, *, error: Exception) -> None:
        collector.bring_back()  # what this build set aside (its traces) is the collector's again

    def _write_notes(self, lecture: LecturePage, site_dir: Path) -> None:
        out = paths.notes_path(self.project_root, lecture.name)
        if self.layout.edtrace:  # its work folder is var/chalktrace/ (git ignores var/), not build/
            out = self.layout.work_dir / "notes" / f"{lecture.name}.json"
        if not write_notes(out, site_dir, notes_text(lecture.trace)):
            log.warning("chalktrace: site_dir holds %s: speaker notes are not written (they would be published)", out)

    def _render_step_data(self, lecture: LecturePage) -> Entry:
        """What a trace's rendering made: its pages (as this build rendered them), data.js, exact.js
        and every chart and heatmap drawn."""
        assert lecture.renderer is not None
        data_js = viewer_data_text(lecture.trace, lecture.renderer, title=lecture.title) if self.config.step_mode else None
        content, toc = self._contents.get(lecture.name, (None, None))
        return Entry(
            read_page=lecture.page,
            source_page=self._source_pages.get(lecture.name),
            data_js=data_js,
            exact_js=lecture.renderer.exact_js(),
            charts=dict(lecture.renderer.charts),
            heatmaps=dict(lecture.renderer.heatmaps),
            content=content,
            toc=toc,
            search_entries=self._search_entries.get(lecture.name),
        )

    def _reuse_search_entries(self, config: Any) -> None:
        """Let the search plugin take a cached lecture page's entries instead of parsing its HTML again
        (the entries come from the page's content and table of contents, both cached with them)."""
        for plugin in config.plugins.values():
            index = getattr(plugin, "search_index", None)
            if index is None or not isinstance(getattr(index, "entries", None), list):
                continue
            index_page = getattr(index, "add_entry_from_context", None)
            if index_page is None or getattr(index_page, "chalktrace", False):
                continue

            def add_entry_from_context(page: Any, index: Any = index, index_page: Any = index_page) -> None:
                cached = self._cached_content(page)
                if cached is not None and cached.search_entries is not None:
                    index.entries.extend(copy.deepcopy(cached.search_entries))
                    return
                before = len(index.entries)
                index_page(page)
                lecture = self._lecture_of(page)
                if lecture is not None:
                    self._search_entries[lecture.name] = copy.deepcopy(index.entries[before:])

            add_entry_from_context.chalktrace = True  # type: ignore[attr-defined]
            index.add_entry_from_context = add_entry_from_context
