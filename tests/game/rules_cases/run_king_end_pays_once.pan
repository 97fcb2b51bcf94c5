# Issue #21: laying 7S on JS QS KS must not pay the King end again.
# RULES.md §4.1 C4 (a rope ending with a King: 1 unit, 2 in spades), §4.3 (further rope cards do not
# pay), §4.4 (what a condition collected is kept and never paid twice).
# Seat 0: JS QS + plucked KS = C4 in spades, 2 from each other player. Later 7S, then 6S, on the
# same rope: nothing more.
rules california going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS 6S 2C 4D AH 3C 5D QH KC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: KS 2S 4S 7S 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld JS QS
expect stacks=103,97,97 singles=3
! 0 add 1 => IllegalMeld: at least one card
0 discard 2C
! 1 add 1 => RuleViolation: Draw first
1 pluck
! 1 add 1 => IllegalMeld: no meld 1
1 discard
2 pluck
2 discard
0 pluck
0 add 1
0 add 1 6S
0 discard 4D
expect stacks=103,97,97 singles=3
