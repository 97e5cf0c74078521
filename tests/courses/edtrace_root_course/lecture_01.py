"""Counting words: a lecture written for edtrace, in the course's own layout."""

from collections import Counter

from edtrace import image, link, text
from lecture_util import paper, say
from references import counting_paper, hashing_paper, sampling_paper, zipf_notes

SENTENCE = "the cat saw the dog and the dog saw the cat"


class Tally:
    """Word counts; edtrace shows such an object through its asdict()."""

    def __init__(self, words):
        self.counts = Counter(words)

    def asdict(self):
        return {"distinct": len(self.counts), "most_common": self.counts.most_common(2)}


def main():
    text("# Counting words")
    paper(counting_paper)
    link(zipf_notes)
    image("images/tally.svg", width=240)
    image("https://images.example.org/figures/zipf.png", width=240)  # kept in var/files/ by edtrace

    words = SENTENCE.split()  # @inspect words
    tally = Tally(words)  # @inspect tally
    top = tally.counts.most_common(1)[0][0]  # @inspect top # ties go to the word seen first
    share = tally.counts[top] / len(words)  # @inspect share
    scratch = len(words) * 2  # @inspect scratch @clear scratch

    write_vocabulary(tally)
    image("var/vocabulary.svg", width=240)
    say("The vocabulary is written to var/vocabulary.txt.")
    paper(sampling_paper)
    link(hashing_paper)


def write_vocabulary(tally):
    with open("var/vocabulary.txt", "w") as f:
        for word, count in sorted(tally.counts.items()):
            f.write(f"{word}\t{count}\n")
    bars = "".join(
        f'<rect x="0" y="{20 * i}" width="{30 * count}" height="16" fill="#4a6fa5"/>'
        f'<text x="{30 * count + 4}" y="{20 * i + 13}" font-size="12">{word}</text>'
        for i, (word, count) in enumerate(sorted(tally.counts.items()))
    )
    with open("var/vocabulary.svg", "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="{20 * len(tally.counts)}">{bars}</svg>')


if __name__ == "__main__":
    main()
