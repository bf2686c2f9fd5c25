# WebSearch flow-size distribution, measured in a production web-search cluster and published in
# M. Alizadeh et al., "Data Center TCP (DCTCP)", ACM SIGCOMM 2010.
# The table is the one in the HPCC simulator's traffic generator
# (alibaba-edu/High-Precision-Congestion-Control, traffic_gen/WebSearch_distribution.txt).
#
# Format (bifrost CDF file): one point per line, "flow_size_bytes cumulative_percent", sizes and
# percents non-decreasing, first percent 0, last 100; '#' starts a comment. Sizes between points
# are linearly interpolated. Mean of this piecewise-linear distribution: 1711250 bytes.
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
