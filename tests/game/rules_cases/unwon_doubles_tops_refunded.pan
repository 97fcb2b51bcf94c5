# RULES.md §4.7 / G24: a singles winner takes only the singles tops; with the option
# unwon_doubles_tops = refund the doubles tops go back to the doubles players who anted them.
# Seats 0 and 1 play doubles (ante 1 to each pot), seat 2 singles. 0 and 1 go on top (forfeit: the
# ante, §2.5), seat 2 is the lone player and wins the singles tops, 3 (§2.5 REC). The doubles tops,
# 2, are refunded 1 each: 100 - 2 + 1 = 99, 99, and 100 - 1 + 3 = 102.
rules california unwon_doubles_tops=refund going_out_units=2
sit 1001 buyin=100 doubles seat=0
sit 1002 buyin=100 doubles seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS 6S 2C 4D AH 3C 5D QH KC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: 3D 3D 3D
expect stacks=98,98,99 singles=3 doubles=2
0 top
1 top
2 knock
expect stacks=99,99,102 singles=0 doubles=0
