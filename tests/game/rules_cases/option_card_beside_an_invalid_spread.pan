# RULES.md §2.7 (the option card: the previous player's unused pluck, if he can meld it at once; a borrow,
# §3.4, is a way to meld it) under enforcement = players (§0): seat 0 has an invalid spread AS 2S 4S
# that nobody called. It does not take away his option card: seat 2's unused pluck 7D makes a new meld
# with his 7C and the 7H borrowed from his rope 4H 5H 6H 7H (which stays a rope): 7H 7D 7C, three
# valle of different suits (C1, 1 unit, §4.1), so he may take it and collects 1 from each.
# Start 100 each, ante 1 -> 99; the rope pays nothing.
rules california enforcement=players going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: 4H 5H 6H AS 2S 4S 7C 2C 4D QC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C KD KH | stock: 7H 2C 7D 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld 4H 5H 6H
0 meld AS 2S 4S
0 discard 2C
expect stacks=99,99,99 singles=3
1 pluck
1 discard
2 pluck
2 discard
0 option
0 borrow 7C from 1:7H
expect stacks=101,98,98 singles=3
0 discard 4D
expect stacks=101,98,98 singles=3
