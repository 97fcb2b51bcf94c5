# A plain hand: seat 0 melds 5S 5S 5S (4 from each), then goes out making JS QS KS (2):
# each opponent pays 2 (condition) + 2 (bust-out) + 6 (outs); california pays no going-out units; seat 0 takes the tops.
rules california
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
start first=0 shoe=5S 5S JS QS 2D 3C 7C KC 4D JD 4C JC AD 5D 2H 3D 4D 5D 6D 7C AH 5H 2S 6S QS 6H QH 3S 7S KS 5S KH KH KS 2C 2C 2C 2C 2C 2C 2C 2C
0 knock
1 knock
2 knock
0 pluck
0 meld 5S 5S
0 discard 7C
1 pluck
1 discard
2 pluck
2 discard
0 pluck
0 meld JS QS
0 meld 2D 3D 4D 5D 6D
