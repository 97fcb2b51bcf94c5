# Issue #21: suited_ak_pays = off makes suited sets of Aces or Kings pay nothing (§4.2, G14); it
# does not touch ropes: JS QS KS still pays its King end, 2 in spades (§4.1 C4).
rules california suited_ak_pays=off going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: AS AS 2C 4D 6H QH 3C 5D 7H JC | 1: JS QS 2D 4C 6C QC 3H 5C 7D JH | 2: KH KH 2H 4H 6D QD 3S 5S 7C JD | stock: AS KS KH 4S 4S
0 knock
1 knock
2 knock
0 pluck
0 meld AS AS
0 discard 2C
1 pluck
1 meld JS QS
1 discard 2D
2 pluck
2 meld KH KH
2 discard 2H
expect stacks=97,103,97 singles=3
