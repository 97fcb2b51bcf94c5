# RULES.md G9 / §2.7 with option_card = off ("some rules forbid drawing from the discard pile"): an unused
# pluck is no option card, so it cannot be forced on the next player either (§5.1 forces the option card).
# The same deal as first_seat_forces_the_option_card: seat 1's 7H fits seat 2's 4H 5H 6H, yet nobody
# may force it, and seat 2 plucks. No condition is made: every stack stays at 100 - 1 (ante).
rules california option_card=false going_out_units=2
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
! 0 force => ForceRefused: no card you can force
2 pluck
2 discard
expect stacks=99,99,99 singles=3
