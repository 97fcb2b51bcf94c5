# RULES.md §6.3 ("he must make it valid on demand") under enforcement = players (§0): seat 0 lays
# AS 2S 4S (a gap: not a rope) while holding 3S. Seat 1 calls it foul before the discard: seat 0 can
# make it good, so the call demands that instead of fouling him. Made good with 3S it is AS 2S 3S 4S,
# a rope starting with the Ace in spades: C4 = 2 units (§4.1) from each other player.
# Start: 100 each, ante 1 -> 99. JS QS + plucked KS: C4 in spades, 2 from each -> 103, 97, 97.
rules california enforcement=players going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS AS 2S 4S 3S 2C 4D 6H 3C | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: KS 3D 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld JS QS
0 meld AS 2S 4S
expect stacks=103,97,97 singles=3
1 foul 0 invalid_meld
# a demand, not a foul: nothing refunded, and seat 0 must make the spread good before anything else
expect stacks=103,97,97 singles=3
! 0 discard 2C => WrongStep: make your spread good first
! 1 pluck => NotYourTurn: A spread is being made good
0 makegood 2 3S
expect stacks=107,95,95 singles=3
0 discard 2C
expect stacks=107,95,95 singles=3
