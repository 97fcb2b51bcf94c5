# claim_mode = deferred ([S0], §4.5, G34): an unclaimed pay waits for the player's next use of a
# card. Seat 0 melds 5S 5S 5S (4) and discards without claiming: nobody pays. He cannot claim
# before his next hit; after adding a fourth 5S (+2) he claims 6 from each.
rules california claim_mode=deferred going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: 5S 5S 2C 6C QC 3D 7D KD 4H JH | 1: 3C 7C KC 4D JD AH 5H 2S 6S QS | 2: 4C JC AD 5D 2H 6H QH 3S 7S KS | stock: 5S KH KH 5S 2D 2D
0 knock
1 knock
2 knock
0 pluck
0 meld 5S 5S
0 discard 2C
expect stacks=99,99,99 singles=3
1 pluck
1 discard
2 pluck
2 discard
! 0 claim => RuleViolation: only after using a card
0 pluck
0 add 1
0 claim
expect stacks=111,93,93 singles=3
! 0 claim => RuleViolation: nothing to claim
0 discard 6C
