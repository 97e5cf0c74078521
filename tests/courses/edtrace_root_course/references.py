"""The papers and pages the lectures cite."""

from edtrace import url_reference

counting_paper = url_reference("https://arxiv.org/abs/9903.00001")
sampling_paper = url_reference("https://arxiv.org/abs/9903.00002")
hashing_paper = url_reference("https://arxiv.org/abs/9903.00003")
sketching_paper = url_reference("https://arxiv.org/abs/9903.00004")
timing_paper = url_reference("https://arxiv.org/abs/9903.00005")
profiling_paper = url_reference("https://arxiv.org/abs/9903.00006")
caching_paper = url_reference("https://arxiv.org/abs/9903.00007")
batching_paper = url_reference("https://arxiv.org/abs/9903.00008")
sorting_paper = url_reference("https://arxiv.org/abs/9903.00009")
merging_paper = url_reference("https://arxiv.org/abs/9903.00010")
streaming_paper = url_reference("https://arxiv.org/abs/9903.00011")
indexing_paper = url_reference("https://arxiv.org/abs/9903.00012")
zipf_notes = url_reference("https://notes.example.org/zipf", title="Notes on word frequencies", authors=["Ida Imaginary"], date="2098-05-01")
timer_guide = url_reference("https://docs.example.org/timers", title="Measuring short things")
