# RULES.md §4.6 worked case: going out on a play that makes a condition (a bust-out). Seat 0 is
# flat (5S 5S 5S, QD QD QD, 2C..5C) and plucks AC: AC..5C is a C4 (1). Each opponent pays that
# condition (1), the bust-out bonus (1 more), the outs of the whole board (4 + 1 + 1 = 6) and the
# 2 going-out units: 10 each; the winner takes the tops.
rules california going_out_units=2 bust_out=new_or_enhanced
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: 5S 5S QD QD QD 2C 3C 4C 5C 7H | 1: 3H 7C KC 4D JD AH 5H 2S 6S QS | 2: 4H JC AD 5D 2H 6H QH 3S 7S KS | stock: 5S 2D 4S AC 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld 5S 5S
0 meld QD QD QD
0 meld 2C 3C 4C 5C
0 discard 7H
1 pluck
1 discard
2 pluck
2 discard
0 pluck
0 add 3
expect stacks=132,84,84 singles=0
