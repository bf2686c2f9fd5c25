# Facebook Hadoop flow-size distribution, published in A. Roy et al., "Inside the Social
# Network's (Datacenter) Network", ACM SIGCOMM 2015.
# The table is the one in the HPCC simulator's traffic generator
# (alibaba-edu/High-Precision-Congestion-Control, traffic_gen/FbHdp_distribution.txt).
#
# Format (bifrost CDF file): one point per line, "flow_size_bytes cumulative_percent", sizes and
# percents non-decreasing, first percent 0, last 100; '#' starts a comment. Sizes between points
# are linearly interpolated. Mean of this piecewise-linear distribution: 120420.75 bytes.
0 0
100 1
200 2
300 5
350 15
400 20
500 30
600 40
700 50
1000 60
2000 67
7000 70
30000 72
50000 82
80000 87
120000 90
300000 95
1000000 97.5
2000000 99
10000000 100
