"""Exercise 04.3 · predict, then check: the smallest tile worth its programs (lesson 04,
"How big should a tile be?").

Starting ``n / BLOCK`` programs at the GPU's dispatch rate R takes ``n / (BLOCK * R)``;
moving the add's ``12 n`` bytes at the copy bandwidth C takes ``12 n / C``. With 4 warps,
from which power of two BLOCK on does moving the bytes take longer than starting the
programs, on our H100? Write your answer below (one of 32, 64, 128, 256, 512, 1024), then:

    python -m exercises check 04.3

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # your BLOCK: 32, 64, 128, 256, 512 or 1024
# --8<-- [end:starter]
