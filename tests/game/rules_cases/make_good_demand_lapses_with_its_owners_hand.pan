# RULES.md §6.3 under enforcement = players (§0): a foul call on seat 0's invalid AS 2S 4S demands
# that he make it good (see invalid_rope_made_good_on_demand.pan). Before he does, the floor fouls
# his hand: a dead hand has nothing to make good, so the demand lapses and play goes on with seat 1.
# Start 100 each, ante 1 -> 99. JS QS + plucked KS: C4 in spades, 2 from each -> 103, 97, 97.
# The foul repays every collection (§6.3 item 1): 2 back to each -> 99, 99, 99; the tops stay 3.
rules california enforcement=players going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS AS 2S 4S 3S 2C 4D 6H 3C | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: KS 7H 7H 7H
0 knock
1 knock
2 knock
0 pluck
0 meld JS QS
0 meld AS 2S 4S
1 foul 0 invalid_meld
! 1 pluck => NotYourTurn: A spread is being made good
floor foul 0
expect stacks=99,99,99 singles=3
1 pluck
1 discard
2 pluck
2 discard
expect stacks=99,99,99 singles=3
