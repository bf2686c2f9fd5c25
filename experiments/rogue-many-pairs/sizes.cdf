# RoGUE's many-pairs workload (section 5.6): 1 MB flows, and "a short 1KB message to a random
# server once every ten 1MB messages": 1 KB with probability 1/11, 1 MB with 10/11.
1024 0
1024 9.0909
1048576 9.0909
1048576 100
