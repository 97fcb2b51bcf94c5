# The same hand with suited_ak_pays = on (the default, §4.2): AS AS AS is a C3 in spades (2),
# JS QS KS a C4 in spades (2), KH KH KH a C3 (1); each paid by both other players.
rules california suited_ak_pays=on going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: AS AS 2C 4D 6H QH 3C 5D 7H JC | 1: JS QS 2D 4C 6C QC 3H 5C 7D JH | 2: KH KH 2H 4H 6D QD 3S 5S 7C JD | stock: AS KS KH 4S 4S
0 knock
1 knock
2 knock
0 pluck
0 meld AS AS
expect stacks=103,97,97 singles=3
0 discard 2C
1 pluck
1 meld JS QS
expect stacks=101,101,95 singles=3
1 discard 2D
2 pluck
2 meld KH KH
2 discard 2H
expect stacks=100,100,97 singles=3
