# RULES.md §2.4 (Hoyle, the classic preset): after the deal "the top card of the stock is turned face up
# ... to start the discard pile"; the stock goes on below it. Here the upcard is 6C (nobody can meld it),
# so seat 0's pluck is the next card, KS: with his JS QS it is a rope ending with the King in spades
# (C4, 2 units, §4.1) -> 2 from each other player. Start 100 each, ante 1 -> 99.
rules classic going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS 6S 2C 4D AH 3C 5D QH KC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: 6C KS 3D 3D
0 knock
1 knock
2 knock
! 0 option => OptionRefused: only if you can meld it
0 pluck
0 meld JS QS
expect stacks=103,97,97 singles=3
