"""The site's own stylesheets and the viewer's scripts, as the plugin publishes them.

``viewer_bundle`` joins the viewer's plain scripts (``assets/``) into one file, ``VIEWER_BUNDLE``;
``reload_script_tag`` is the development server's reload script, a file of the site's own origin.
This module must not decide what a script does or in which order the viewer builds its controllers
(``assets/viewer-core.js`` lists them).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from tracer.contract import paths
from tracer.site.cards.interface_strings import Catalogue, load

# The site's own stylesheets (assets/), linked from every page in this order.
STYLESHEETS = ("site.css", "viewer.css", "ranks.css")
# The viewer's plain scripts (assets/), in the order they run: the interface strings' lookup, read mode,
# the quiz answer parser, step mode's data unpacker and its core, then every viewer-NAME.js controller
# (in any order: the core lists its controllers and builds them in its own order), then plugins that use
# only the core's public surface. The site publishes them joined, as they are, into one file
# (VIEWER_BUNDLE): one request per page instead of one per file, which a page's first load feels on a
# plain HTTP/1 server.
SCRIPTS_BEFORE_CONTROLLERS = ("strings.js", "read.js", "quiz-parse.js", "step-data.js", "viewer-core.js")
PLUGIN_SCRIPTS = ("ranks.js",)
VIEWER_BUNDLE = "viewer.js"


def viewer_scripts(assets_dir: Path) -> tuple[str, ...]:
    """The scripts VIEWER_BUNDLE joins, in order: a new controller file is picked up by its name."""
    controllers = sorted(p.name for p in assets_dir.glob("viewer-*.js") if p.name not in SCRIPTS_BEFORE_CONTROLLERS)
    return SCRIPTS_BEFORE_CONTROLLERS + tuple(controllers) + PLUGIN_SCRIPTS


def viewer_bundle(assets_dir: Path, strings: Catalogue | None = None) -> str:
    """The viewer's scripts joined in order, each file unchanged under a comment naming it (each is its own
    IIFE), after the course language's interface strings (``window.CHALKTRACE_STRINGS``, read by strings.js):
    the language is the site's, so the words travel once, in the file every page shares."""
    catalogue = strings or load()
    head = f"/* ---- interface strings: {catalogue.name} ---- */\nwindow.CHALKTRACE_STRINGS = {catalogue.viewer_json()};\n"
    texts = ((name, (assets_dir / name).read_text(encoding="utf-8")) for name in viewer_scripts(assets_dir))
    return head + "".join(f"/* ---- {name} ---- */\n{text}" + ("" if text.endswith("\n") else "\n") for name, text in texts)


LIVERELOAD_ASSET = "livereload.js"  # served only while serving (tracer/site/assets/livereload.js)


def reload_script_tag(mount_path: str, epoch: int) -> bytes:
    """The tag the development server puts before ``</body>`` instead of MkDocs' inline reload script,
    which the lecture pages' Content-Security-Policy refuses: a file of the site's own origin."""
    src = html.escape(mount_path.rstrip("/") + "/" + paths.ASSETS_URL + LIVERELOAD_ASSET)
    status = html.escape(mount_path.rstrip("/") + "/" + paths.RETRACE_STATUS_URL)
    return f'<script src="{src}" data-epoch="{int(epoch)}" data-retrace-status="{status}"></script>'.encode()


def serve_reload_script(server: Any) -> bool:
    """Make the development server link the reload script as a file instead of putting MkDocs' own
    inline: the lecture pages' policy (script-src 'self' and the page's own hashed scripts) refuses
    an inline one, so pages would never reload. Built pages are untouched. False when this MkDocs
    has no such hook."""
    if not hasattr(server, "_inject_js_into_html"):
        return False

    def inject(content: bytes, epoch: int) -> bytes:
        end = content.rfind(b"</body>")
        end = len(content) if end < 0 else end
        return content[:end] + reload_script_tag(server.mount_path, epoch) + content[end:]

    server._inject_js_into_html = inject
    return True
