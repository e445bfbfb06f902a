"""Exercise 14.2 · predict, then check: what a lean launch costs (lesson 14, "What a launch
costs, and the lean path").

``LeanAdd`` validates its first call in full, keeps the compiled kernel, and from then on
checks only what would make that kernel wrong before it calls the launcher. On 128 floats,
how many times the host time of ``torch.add(out=)`` does one ``LeanAdd`` call take on our
H100? Pick the nearest of 1, 1.25, 2, 3 and 5, write it below, then:

    python -m exercises check 14.2

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # times torch.add's host time: 1, 1.25, 2, 3 or 5
# --8<-- [end:starter]
