# RULES.md §3.4 with borrow_split_rope = on: borrowing the middle 4H of AH 2H 3H 4H 5H 6H 7H leaves two
# ropes. The melds keep their numbers in order: the new meld 4H 4D 4C is meld 2 and the cut-off rope
# 5H 6H 7H is meld 3 (numbers are given in the order melds appear), so "add 3 JH" lays JH on it.
# AH...7H: C4 from the Ace, 1 unit from each (§4.1) -> 101, 98, 98; AH 2H 3H keeps what it collected
# (§4.4), 4H 4D 4C (three suits, not valle) and 5H 6H 7H JH pay nothing.
rules california borrow_split_rope=true going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: AH 2H 3H 4H 5H 6H 4D 2C 3C JH | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: 7H 2S 2S 4C 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld AH 2H 3H 4H 5H 6H
0 discard 2C
expect stacks=101,98,98 singles=3
1 pluck
1 discard
2 pluck
2 discard
0 pluck
0 borrow 4D from 1:4H
0 add 3 JH
0 discard 3C
expect stacks=101,98,98 singles=3
