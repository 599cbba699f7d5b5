import re,sys
METHODS=set("""create findBySecretHash findById charge refund list appendRecords publish get listForToken listByState listFinishedBefore update pendingRecords saveResults result results purge addReport updateReport reports report reportByKey save replaceAll listByApi delete createJob findJob getJob listJobs jobsWithStatus updateJob startRound resetJob deleteJob holdJobs restoreHeldJobs recoverClaims hosts claim release nextPendingAt unfinishedCount recordOutcomes listObjects listUrls enqueueWebhook dueWebhooks nextWebhookAt webhookDelivered webhookFailed getSwitch setSwitch""".split())
recv=sys.argv[1]  # regex for receiver, e.g. (?:storage|tx|store)\.(?:tokens|bulkJobs|crawlJobs|customApis)
extra=set(sys.argv[3].split(',')) if len(sys.argv)>3 and sys.argv[3] else set()
pat=re.compile(r'(?<![\w.#])('+recv+r')\.(\w+)\(')
def close_paren(s,i):
    depth=0; j=i
    instr=None
    while j<len(s):
        c=s[j]
        if instr:
            if c=='\\': j+=2; continue
            if c==instr: instr=None
        elif c in '\'"`': instr=c
        elif c in '([{': depth+=1
        elif c in ')]}':
            depth-=1
            if depth==0: return j
        j+=1
    raise Exception('unbalanced')
for path in sys.argv[2].split(','):
    s=open(path).read()
    out=[];pos=0
    for m in list(pat.finditer(s)):
        if m.start()<pos: continue
        name=m.group(2)
        if name not in METHODS and name not in extra: continue
        start=m.start()
        pre=s[max(0,start-7):start]
        if pre.endswith('await ') or pre.endswith('(await'): continue
        end=close_paren(s,m.end()-1)+1
        follow=s[end:end+2]
        expr=s[start:end]
        if follow.startswith('.') or follow.startswith('?.') or follow.startswith('[') or follow.startswith('!'):
            rep='(await '+expr+')'
        else:
            rep='await '+expr
        out.append(s[pos:start]); out.append(rep); pos=end
    out.append(s[pos:])
    s=''.join(out)
    open(path,'w').write(s)
