# ldmatrix, shared -> registers; m8n8 .b16 on every target (PTX 6.5)
LDSM_X1_B16                6.5 all      shape=m8n8 num=1 trans=0 bits=16 regs=1      ldmatrix.sync.aligned.m8n8.x1.shared.b16 $0:vec, [$1:a32];
LDSM_X2_B16                6.5 all      shape=m8n8 num=2 trans=0 bits=16 regs=2      ldmatrix.sync.aligned.m8n8.x2.shared.b16 $0:vec, [$1:a32];
LDSM_X4_B16                6.5 all      shape=m8n8 num=4 trans=0 bits=16 regs=4      ldmatrix.sync.aligned.m8n8.x4.shared.b16 $0:vec, [$1:a32];
LDSM_X1_T_B16              6.5 all      shape=m8n8 num=1 trans=1 bits=16 regs=1      ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 $0:vec, [$1:a32];
LDSM_X2_T_B16              6.5 all      shape=m8n8 num=2 trans=1 bits=16 regs=2      ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 $0:vec, [$1:a32];
LDSM_X4_T_B16              6.5 all      shape=m8n8 num=4 trans=1 bits=16 regs=4      ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 $0:vec, [$1:a32];
# b8 shapes (sm_100a class, PTX 8.6): m16n16 needs .trans; m8n16 needs source formats
LDSM_M16N16_X1_T_B8        8.6 b8matrix shape=m16n16 num=1 trans=1 bits=8 regs=2     ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 $0:vec, [$1:a32];
LDSM_M16N16_X2_T_B8        8.6 b8matrix shape=m16n16 num=2 trans=1 bits=8 regs=4     ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 $0:vec, [$1:a32];
LDSM_M16N16_X1_T_B6P32     8.6 b8matrix shape=m16n16 num=1 trans=1 bits=8 fmt=b6x16_p32 regs=2 ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32 $0:vec, [$1:a32];
LDSM_M16N16_X2_T_B6P32     8.6 b8matrix shape=m16n16 num=2 trans=1 bits=8 fmt=b6x16_p32 regs=4 ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32 $0:vec, [$1:a32];
LDSM_M16N16_X1_T_B4P64     8.6 b8matrix shape=m16n16 num=1 trans=1 bits=8 fmt=b4x16_p64 regs=2 ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64 $0:vec, [$1:a32];
LDSM_M16N16_X2_T_B4P64     8.6 b8matrix shape=m16n16 num=2 trans=1 bits=8 fmt=b4x16_p64 regs=4 ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64 $0:vec, [$1:a32];
LDSM_M8N16_X1_B6P32        8.6 b8matrix shape=m8n16 num=1 trans=0 bits=8 fmt=b6x16_p32 regs=1 ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 $0:vec, [$1:a32];
LDSM_M8N16_X2_B6P32        8.6 b8matrix shape=m8n16 num=2 trans=0 bits=8 fmt=b6x16_p32 regs=2 ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b6x16_p32 $0:vec, [$1:a32];
LDSM_M8N16_X4_B6P32        8.6 b8matrix shape=m8n16 num=4 trans=0 bits=8 fmt=b6x16_p32 regs=4 ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32 $0:vec, [$1:a32];
LDSM_M8N16_X1_B4P64        8.6 b8matrix shape=m8n16 num=1 trans=0 bits=8 fmt=b4x16_p64 regs=1 ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 $0:vec, [$1:a32];
LDSM_M8N16_X2_B4P64        8.6 b8matrix shape=m8n16 num=2 trans=0 bits=8 fmt=b4x16_p64 regs=2 ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b4x16_p64 $0:vec, [$1:a32];
LDSM_M8N16_X4_B4P64        8.6 b8matrix shape=m8n16 num=4 trans=0 bits=8 fmt=b4x16_p64 regs=4 ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64 $0:vec, [$1:a32];
