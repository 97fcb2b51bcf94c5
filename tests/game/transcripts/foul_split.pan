# Seat 0 collects 4 from each for 5S 5S 5S; seat 1 times out; the floor fouls seat 0 (he refunds 4 each).
# The last two: seat 2 offers a split, seat 1 declines, later seat 1 offers and seat 2 accepts; the odd chip carries.
rules california
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
start first=0 shoe=5S 5S 2C 6C QC 3C 7C KC 4D JD 4C JC AD 5D 2H 3D 7D KD 4H JH AH 5H 2S 6S QS 6H QH 3S 7S KS 5S KH KH KH KH 2C 2C 2C 2C 2C 2C 2C 2C
0 knock
1 knock
2 knock
0 pluck
0 meld 5S 5S
0 discard 2C
1 timeout
floor foul 0
2 split offer
1 split decline
2 pluck
2 discard
1 split offer
2 split accept
