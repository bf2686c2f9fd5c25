# A small test CDF: a point mass at 100 bytes, then uniform up to 300 bytes.
100 0
100 20
300 100
