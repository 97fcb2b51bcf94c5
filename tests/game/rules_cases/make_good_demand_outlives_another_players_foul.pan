# RULES.md §6.3 under enforcement = players (§0): a foul call on seat 0's invalid AS 2S 4S demands
# that he make it good (see invalid_rope_made_good_on_demand.pan). The floor then fouls seat 2's
# hand: that does not lift seat 0's demand, which he must still meet before he may discard.
# Start 100 each, ante 1 -> 99. JS QS + plucked KS: C4 in spades, 2 from each -> 103, 97, 97.
# Seat 2 has received nothing, so his foul repays nothing. Made good with 3S the spread is
# AS 2S 3S 4S, a C4 in spades (2 units, §4.1), paid by seat 1 and by the fouled seat 2, who stays
# liable for conditions (§6.3 item 2): 107, 95, 95.
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
floor foul 2
expect stacks=103,97,97 singles=3
! 0 discard 2C => WrongStep: make your spread good first
0 makegood 2 3S
expect stacks=107,95,95 singles=3
0 discard 2C
