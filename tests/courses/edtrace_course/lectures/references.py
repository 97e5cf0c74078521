"""The course's reading list, built from edtrace's Reference and url_reference."""

from edtrace import Reference, url_reference

stepping_2099 = url_reference("https://arxiv.org/abs/9901.00001", notes="Why a lecture should step like a debugger")

tracing_2099 = url_reference("https://arxiv.org/pdf/9901.00002v2.pdf", organization="Example Lab")

course_report_2098 = Reference(
    title="Annual report on teaching with executable notes", organization="Example Teaching Group",
    date="2098-06-01", url="https://reports.example.org/2098",
)

handbook = Reference(title="The Course Handbook of Executable Lectures", date="2097",
                     url="https://handbook.example.org/")
