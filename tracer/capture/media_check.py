"""What a remote host's answer is, by its bytes: only an image or a video is kept, under a name we choose.

A remote image or video is published on the course's own origin, so whatever a host answers must
be media and nothing else. ``checked(body, content_type, kind)`` asks that the declared content
type is ``image/*`` (``image()``) or ``video/*`` (``video()``) and that the file's first bytes
(its magic number) say the same kind of file; the extension the cache file is published with comes
from those bytes, never from the URL or the host. SVG is text that can hold script: it is kept only
after sanitizing (``<script>``, ``<foreignObject>`` and other embedding elements, ``on*`` event
handler attributes, ``<style>`` and any reference outside the file removed); an SVG that does not
parse, or declares a DOCTYPE or entities, is refused. Anything else is refused with the reason in a
few words. This module must not fetch or write files.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
# (magic test, extension, major type) for the binary formats a page can show.
_RIFF_WEBP = re.compile(rb"RIFF....WEBP", re.S)
_FTYP = re.compile(rb"....ftyp(....)", re.S)
# Elements that embed or run something other than drawing: removed with their content.
_DROPPED = {"script", "foreignObject", "iframe", "object", "embed", "style", "handler", "listener", "audio", "video"}
# Animations that could set a link or a handler (``<set attributeName="href" to="javascript:…">``).
_ANIMATIONS = {"animate", "set", "animateMotion", "animateTransform"}
# Elements whose href/src may name another document; kept only with a same-file reference (#id).
_REFERENCE_ATTRIBUTES = {"href", f"{{{XLINK_NS}}}href", "src"}
# A style attribute that reaches outside the file (url() not to #id, @import, expression()).
_OUTSIDE_STYLE = re.compile(r"url\(\s*['\"]?\s*(?!#)|@import|expression\s*\(|javascript:", re.I)


@dataclass
class Checked:
    body: bytes  # the bytes to keep (an SVG's sanitized text)
    extension: str  # chosen from the bytes: ".png", ".svg", ".mp4", …
    content_type: str  # what the bytes are


class NotMedia(Exception):
    """The answer is not an image or video of the kind asked; str() says why in a few words."""


def sniff(body: bytes) -> tuple[str, str] | None:
    """(extension, content type) of a binary image or video by its first bytes, else None."""
    head = body[:32]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return ".png", "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return ".jpg", "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return ".gif", "image/gif"
    if _RIFF_WEBP.match(head):
        return ".webp", "image/webp"
    if head.startswith(b"BM") and len(body) > 26:
        return ".bmp", "image/bmp"
    box = _FTYP.match(head)
    if box:
        brand = box.group(1)
        if brand in (b"avif", b"avis"):
            return ".avif", "image/avif"
        if brand.startswith(b"qt"):
            return ".mov", "video/quicktime"
        return ".mp4", "video/mp4"
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return ".webm", "video/webm"
    if head.startswith(b"OggS"):
        return ".ogv", "video/ogg"
    return None


def checked(body: bytes, content_type: str | None, kind: str) -> Checked:
    """The file to keep for ``kind`` ("image" or "video") given what the host answered; NotMedia
    when the declared type or the bytes are not that kind of file."""
    major = "image" if kind == "image" else "video"
    declared = (content_type or "").split(";")[0].strip().lower()
    if not declared.startswith(major + "/"):
        raise NotMedia(f"the host answered {declared or 'no content type'}, not {major}/*")
    if declared == "image/svg+xml":
        return Checked(sanitized_svg(body), ".svg", "image/svg+xml")
    found = sniff(body)
    if found is None:
        raise NotMedia(f"the host said {declared} but the bytes are not a known {major} format")
    extension, actual = found
    if not actual.startswith(major + "/"):
        raise NotMedia(f"the host said {declared} but the bytes are {actual}")
    return Checked(body, extension, actual)


def sanitized_svg(body: bytes) -> bytes:
    """The SVG with nothing that runs or reaches outside it; NotMedia when it is not a plain SVG."""
    text = body.decode("utf-8", errors="strict") if body else ""
    if re.search(r"<!DOCTYPE|<!ENTITY", text, re.I):
        raise NotMedia("an SVG with a DOCTYPE or entities")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise NotMedia(f"an SVG that does not parse ({exc})") from None
    if _local(root.tag) != "svg":
        raise NotMedia("the file's root element is not <svg>")
    _clean(root)
    ElementTree.register_namespace("", SVG_NS)
    ElementTree.register_namespace("xlink", XLINK_NS)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _clean(element: ElementTree.Element) -> None:
    for child in list(element):
        animated = child.get("attributeName", "").strip().lower() if _local(child.tag) in _ANIMATIONS else ""
        if not isinstance(child.tag, str) or _local(child.tag) in _DROPPED or "href" in animated or animated.startswith("on"):
            tail = child.tail
            element.remove(child)
            if tail:  # text after a removed element stays
                element.text = (element.text or "") + tail
            continue
        _clean(child)
    for name in list(element.attrib):
        value = element.attrib[name]
        local = _local(name).lower()
        if local.startswith("on"):
            del element.attrib[name]
        elif name in _REFERENCE_ATTRIBUTES and not value.strip().startswith("#"):
            del element.attrib[name]
        elif local == "style" and _OUTSIDE_STYLE.search(value):
            del element.attrib[name]
        elif _OUTSIDE_STYLE.search(value) and local in (
            "fill",
            "stroke",
            "filter",
            "mask",
            "clip-path",
            "marker-start",
            "marker-mid",
            "marker-end",
            "cursor",
        ):
            del element.attrib[name]
