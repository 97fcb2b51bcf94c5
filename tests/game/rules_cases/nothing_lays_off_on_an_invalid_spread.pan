# RULES.md §6.3 / §0 (enforcement = players): an invalid spread is not a meld until it is made good, so
# nothing lays off on it: seat 0's AS 2S 4S does not take 5S. Seat 2's unused pluck 5S is therefore no
# option card for seat 0 (§2.7: only if he can meld it at once) and nobody may force it on him (§5.1:
# it must fit his board spread). Start 100 each, ante 1; JS QS + KS: C4 in spades, 2 from each.
rules california enforcement=players going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS AS 2S 4S 6H 2C 4D 6D 3C | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: KS 2S 5S 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld JS QS
0 meld AS 2S 4S
0 discard 2C
expect stacks=103,97,97 singles=3
1 pluck
1 discard
2 pluck
2 discard
! 0 option => OptionRefused: only if you can meld it
! 1 force => ForceRefused: no card you can force
0 pluck
expect stacks=103,97,97 singles=3
