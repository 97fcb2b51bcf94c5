# RULES.md §5.1 / §5.4 on_demand: when the top discard is an option card that lays off on the in-turn
# player's board, any active player other than the discarder may force it on him; he lays it off,
# discards from his hand and does not pluck. Here the caller is seat 0 (the first seat), the discarder
# seat 1, the target seat 2 with 4H 5H 6H. No condition is made (the rope has neither Ace nor King):
# every stack stays at 100 - 1 (ante).
rules california going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS 6S 2C 4D AH 3C 5D QH KC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 5H 4H 6D QD AC 3S 5S 7C JD KH | stock: 2S 2S 2S 6H 2S 7H 2S 2S
0 knock
1 knock
2 knock
0 pluck
0 discard
0 pluck
0 discard
1 pluck
1 discard
2 pluck
2 meld 4H 5H
2 discard 6D
0 pluck
0 discard
1 pluck
1 discard
! 1 force => ForceRefused: no card you can force
0 force
! 2 pluck => RuleViolation: already drawn this turn
2 add 1
2 discard 3S
expect stacks=99,99,99 singles=3
