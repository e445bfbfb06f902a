"""Exercise 10.3 · predict, then check: the second read, once the rows outgrow the L2
(lesson 10, "The second read, and the L2").

The online forward reads each row twice and writes it once; its bandwidth counts one read
and one write. At 262,144 fp32 columns a row is 1 MiB, and with at least one row in flight
per SM the rows in flight are far larger than the L2. What share of the copy bandwidth
did the forward reach on our H100, at best over the sweep? Write a percentage below,
then:

    python -m exercises check 10.3

It counts as right within 10% of the measured share (relative). The check compares it
with the book's measured data (figures/data/h100/), the same data the page's widget
reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # your share of copy, in percent
# --8<-- [end:starter]
