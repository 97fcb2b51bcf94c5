# RULES.md §2.5 INTERP: the last player to declare can change his declaration until the first stock card
# is drawn. The last seat in rotation (3) leaves the table before declaring, so the last player to
# declare is seat 2: play has started, and he may still knock in (and back) until seat 0 plucks.
# Chips: every seat antes 1 (99 each; seat 3's seat is empty); the tops hold the four antes.
rules california retire_forfeit_chips=0 going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
sit 1004 buyin=100 seat=3
deal first=0 | 0: 5S 5S 2C 6C QC 3D 7D KD 4H JH | 1: 3C 7C KC 4D JD AH 5H 2S 6S QS | 2: 4C JC AD 5D 2H 6H QH 3S 7S KS | 3: 2C 4C 6C QC AD 3D 5D 7D JH KH | stock: 5S KH KH 2S 2S
stand 3
0 knock
1 knock
2 top
! 1 top => DeclarationClosed: only until the next player declares
2 knock
expect stacks=99,99,99,- singles=4
0 pluck
! 2 top => DeclarationClosed: until the first card is drawn
