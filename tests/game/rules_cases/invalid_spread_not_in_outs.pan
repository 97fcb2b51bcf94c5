# Issue #21: an invalid spread never counts toward the outs (§4.6: the outs are the *valid* payable
# konditions; §6.3 an invalid spread pays nothing). enforcement = players lets seat 0 lay AS 2S 4S
# (a gap: not a rope; read as a rope it would start with the Ace, 2 units in spades). The floor
# fouls the other two; with one_left = settle_now seat 0 takes the tops and the outs as his board
# lies: JS QS KS = 2 from each (fouled players still pay the outs, §6.3), the invalid spread 0.
rules california enforcement=players one_left=settle_now going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS AS 2S 4S 2C 4D 6H 3C 5D | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: KS 3D 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld JS QS
0 meld AS 2S 4S
expect stacks=103,97,97 singles=3
0 discard 2C
floor foul 1
floor foul 2
expect stacks=110,95,95 singles=0
