"""</title><script>alert(1)</script>"""

from tracer import text


def main():
    text("<script>alert(2)</script> and `code`")
    x = "</script><script>alert(3)</script>"  # @inspect x
    print("<script>alert(4)</script>")
