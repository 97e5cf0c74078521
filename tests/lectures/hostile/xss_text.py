"""Lecture text that tries to run script in the reader's page."""

from tracer import link, note, text


def main():
    text("<svg/onload=alert(11)>slash before the handler</svg>")
    text('<img src=x onerror  =  alert(12)> <IMG SRC=x ONERROR=alert(13)> <img src="x"/onerror=alert(14)>')
    text("[a markdown link](javascript:alert(15)) and [a reference link][evil]\n\n[evil]: javascript:alert(16)")
    text('<a href="javascript:alert(17)">raw</a> <a href="JaVaScRiPt:alert(18)">mixed case</a> '
         '<a href="jav&#x09;ascript:alert(19)">entity tab</a> <a href=" javascript:alert(20)">space</a>')
    text('<details open ontoggle=alert(21)><summary>details</summary></details> '
         '<form action="javascript:alert(22)"><button>go</button></form> <math><mtext><a href="javascript:alert(23)">m</a></mtext></math>')
    note('<div style="x" onmouseover="alert(24)">hover</div> <iframe srcdoc="<script>alert(25)</script>"></iframe>')
    link("javascript:alert(26)", title="a link() to script")
    link(title="<b>bold</b> title", url="data:text/html,<script>alert(27)</script>")
    text("Still math: $x^2$ and **bold**, `code <b>`, <sub>sub</sub>, [fine](https://example.org) [rel](#L1)")
